// Pure matching of a host against an allowed-hosts setting (names, *.suffix wildcards, IP addresses, CIDR ranges); shared by webhook_allowed_hosts and file_url_hosts.
import { parseIp, samePrefix, type IpBytes } from './ip-address.js';

const NAME = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

type Pattern = { kind: 'name'; name: string } | { kind: 'suffix'; suffix: string } | { kind: 'ip'; bytes: IpBytes; bits: number };

/** The pattern, or why it is invalid. */
function parsePattern(pattern: string): Pattern | string {
  const p = pattern.toLowerCase();
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(p);
  if (cidr) {
    const bytes = parseIp(cidr[1] as string);
    const bits = Number(cidr[2]);
    if (!bytes || bits > bytes.length * 8) return 'not a valid CIDR range (an IPv4 range such as 10.0.0.0/8, or an IPv6 one such as fd00::/8)';
    return { kind: 'ip', bytes, bits };
  }
  const bytes = parseIp(p);
  if (bytes) return { kind: 'ip', bytes, bits: bytes.length * 8 };
  if (!NAME.test(p)) return 'expected a host name, *.domain, an IP address ([IPv6] or bare) or a CIDR range (a.b.c.d/n)';
  return p.startsWith('*.') ? { kind: 'suffix', suffix: p.slice(1) } : { kind: 'name', name: p };
}

/** Why a pattern is invalid, or null. Accepted: `printers.lan`, `*.example.com`, `192.168.1.20`, `10.0.0.0/8`, `[::1]`, `fd00::/8`. */
export function invalidHostPattern(pattern: string): string | null {
  const parsed = parsePattern(pattern);
  return typeof parsed === 'string' ? parsed : null;
}

function patternMatches(pattern: Pattern, host: string, hostIp: IpBytes | null): boolean {
  switch (pattern.kind) {
    case 'name':
      return host === pattern.name;
    case 'suffix':
      return host.endsWith(pattern.suffix) && host.length > pattern.suffix.length;
    case 'ip':
      return hostIp !== null && samePrefix(hostIp, pattern.bytes, pattern.bits);
  }
}

/**
 * Whether `host` (a URL's host name, `[IPv6]` included, or a bare address) matches one of the patterns. An address
 * matches an address or range of its own family by value, so `[FD00:0::5]` and `fd00::5` are the same.
 */
export function matchesHostList(allowed: readonly string[], host: string): boolean {
  const h = host.toLowerCase();
  const ip = parseIp(h);
  return allowed.some((p) => {
    const pattern = parsePattern(p);
    return typeof pattern !== 'string' && patternMatches(pattern, h, ip);
  });
}

/** An empty list allows any receiver: on a LAN private addresses are the normal case. */
export function hostAllowed(allowed: readonly string[], url: string): boolean {
  return allowed.length === 0 || matchesHostList(allowed, new URL(url).hostname);
}

/** Whether any pattern can match an address (an IP or a range) rather than only a host name. */
export const hasAddressPatterns = (allowed: readonly string[]): boolean =>
  allowed.some((p) => {
    const pattern = parsePattern(p);
    return typeof pattern !== 'string' && pattern.kind === 'ip';
  });
