// Pure IP address parsing and classification: which addresses a server-side download must never connect to.

/** An address as bytes: 4 for IPv4, 16 for IPv6. */
export type IpBytes = Uint8Array;

function parseIpv4(text: string): IpBytes | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i] as string;
    // Dotted decimal only: the WHATWG URL parser already turned hex, octal and single-number forms into this.
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return null;
    bytes[i] = Number(part);
  }
  return bytes;
}

function parseIpv6(text: string): IpBytes | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (half: string): number[] | null => {
    if (half === '') return [];
    const out: number[] = [];
    const pieces = half.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as string;
      if (i === pieces.length - 1 && piece.includes('.')) {
        // A trailing dotted IPv4 part (::ffff:169.254.169.254) is the last two groups.
        const v4 = parseIpv4(piece);
        if (!v4) return null;
        out.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number));
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
        out.push(parseInt(piece, 16));
      } else {
        return null;
      }
    }
    return out;
  };
  const head = groupsOf(halves[0] as string);
  const tail = halves.length === 2 ? groupsOf(halves[1] as string) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

/** Bytes of an IPv4 or IPv6 address (brackets and an IPv6 zone such as %eth0 allowed), or null when `text` is not one. */
export function parseIp(text: string): IpBytes | null {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%[^%]*$/, '');
  return bare.includes(':') ? parseIpv6(bare) : parseIpv4(bare);
}

/** Whether the first `bits` bits of two addresses of the same family are equal. */
export function samePrefix(a: IpBytes, b: IpBytes, bits: number): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((a[i] as number) & mask) !== ((b[i] as number) & mask)) return false;
  }
  return true;
}

export type ForbiddenKind = 'link_local' | 'multicast' | 'broadcast' | 'unspecified' | 'cloud_metadata';

export interface ForbiddenAddress {
  kind: ForbiddenKind;
  /** Reads after "169.254.169.254 is": "a link-local address (169.254.0.0/16)". */
  description: string;
}

interface Range {
  prefix: IpBytes;
  bits: number;
  kind: ForbiddenKind;
  description: string;
}

const range = (cidr: string, kind: ForbiddenKind, description: string): Range => {
  const [ip, bits] = cidr.split('/') as [string, string];
  return { prefix: parseIp(ip) as IpBytes, bits: Number(bits), kind, description };
};

/**
 * Never reachable through a download. Loopback and private (LAN) ranges are deliberately absent: a local script
 * serves its file on localhost and a farm fetches from its NAS. Link-local holds the cloud metadata service
 * (169.254.169.254); the two metadata addresses outside it are listed by themselves.
 */
const FORBIDDEN: readonly Range[] = [
  range('0.0.0.0/8', 'unspecified', 'an unspecified address (0.0.0.0/8, which reaches this machine)'),
  range('169.254.0.0/16', 'link_local', 'a link-local address (169.254.0.0/16)'),
  range('224.0.0.0/4', 'multicast', 'a multicast address (224.0.0.0/4)'),
  range('255.255.255.255/32', 'broadcast', 'the broadcast address'),
  range('100.100.100.200/32', 'cloud_metadata', 'a cloud metadata address'),
  range('::/128', 'unspecified', 'the unspecified address (::, which reaches this machine)'),
  range('fe80::/10', 'link_local', 'a link-local address (fe80::/10)'),
  range('ff00::/8', 'multicast', 'a multicast address (ff00::/8)'),
  range('fd00:ec2::254/128', 'cloud_metadata', 'a cloud metadata address'),
];

/** IPv6 forms that carry an IPv4 address in their last 4 bytes and reach it: IPv4-mapped and the NAT64 prefix. */
const EMBEDDING: readonly IpBytes[] = [parseIp('::ffff:0:0') as IpBytes, parseIp('64:ff9b::') as IpBytes];

/** Why an address must not be connected to, or null when it may (loopback, private, public). */
export function forbiddenAddress(bytes: IpBytes): ForbiddenAddress | null {
  if (bytes.length === 16 && EMBEDDING.some((prefix) => samePrefix(bytes, prefix, 96))) {
    const v4 = bytes.subarray(12);
    const inner = forbiddenAddress(v4);
    return inner && { kind: inner.kind, description: `the IPv6 form of ${Array.from(v4).join('.')}, ${inner.description}` };
  }
  const hit = FORBIDDEN.find((r) => samePrefix(bytes, r.prefix, r.bits));
  return hit ? { kind: hit.kind, description: hit.description } : null;
}
