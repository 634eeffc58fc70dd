// Pure rules for claiming a unique service name by multicast DNS (RFC 6762 §8-9, RFC 6763 §4): the names tried one
// after another when one is taken, and the tie-break between two hosts probing for the same name at the same moment.

/** A DNS-SD instance name is at most 63 bytes of UTF-8 (RFC 6763 §4.1.1). */
const MAX_INSTANCE_BYTES = 63;

/** Cuts `text` to at most `bytes` bytes of UTF-8, never inside a character. */
function cutToBytes(text: string, bytes: number): string {
  const encoder = new TextEncoder();
  let out = '';
  let used = 0;
  for (const ch of text) {
    const size = encoder.encode(ch).length;
    if (used + size > bytes) break;
    out += ch;
    used += size;
  }
  return out;
}

/**
 * The `n`-th name to try (n from 1): the name itself, then "name (2)", "name (3)"... as RFC 6762 §9 suggests for
 * names people read. The name is cut to fit 63 bytes, never the number, so the numbered names stay distinct.
 */
export function numberedName(name: string, n: number): string {
  const suffix = n <= 1 ? '' : ` (${n})`;
  return cutToBytes(name, MAX_INSTANCE_BYTES - new TextEncoder().encode(suffix).length) + suffix;
}

/**
 * The full DNS name of a service instance: "printfarm on farm-pi._http._tcp.local". Written as bonjour-service writes
 * it (a dot in the instance name becomes '-'), so a probe asks for exactly the name that is then announced.
 */
export function instanceFqdn(name: string, type: string): string {
  return `${name.split('.').join('-')}._${type}._tcp.local`;
}

/** DNS names compare without regard to ASCII case (RFC 1035 §2.3.3). */
export function sameDnsName(a: string, b: string): boolean {
  return a.replace(/\.$/, '').toLowerCase() === b.replace(/\.$/, '').toLowerCase();
}

/** A resource record as multicast-dns (dns-packet) decodes one and takes one to send. */
export interface MdnsRecord {
  name: string;
  type: string;
  ttl?: number;
  data?: unknown;
}

/** The RR type codes of the records a probe proposes (RFC 1035, RFC 2782, RFC 3596); others sort after them. */
const TYPE_CODES: Record<string, number> = { A: 1, PTR: 12, TXT: 16, AAAA: 28, SRV: 33 };

/** A DNS name in wire form, uncompressed: length-prefixed labels and a zero byte. */
function nameBytes(name: string): number[] {
  const labels = name.replace(/\.$/, '').split('.').filter((l) => l !== '');
  return [...labels.flatMap((l) => { const b = [...new TextEncoder().encode(l)]; return [b.length, ...b]; }), 0];
}

const u16 = (v: unknown): number[] => { const n = typeof v === 'number' ? v : 0; return [(n >> 8) & 0xff, n & 0xff]; };

function textBytes(part: unknown): number[] {
  return part instanceof Uint8Array ? [...part] : [...new TextEncoder().encode(String(part))];
}

/** The record's RDATA as raw bytes, for the byte-wise comparison of RFC 6762 §8.2. */
function rdataBytes(record: MdnsRecord): number[] {
  const data = record.data;
  if (record.type === 'SRV' && typeof data === 'object' && data !== null) {
    const srv = data as { priority?: number; weight?: number; port?: number; target?: string };
    return [...u16(srv.priority), ...u16(srv.weight), ...u16(srv.port), ...nameBytes(srv.target ?? '')];
  }
  if (record.type === 'TXT') {
    const parts = Array.isArray(data) ? data : data === undefined ? [] : [data];
    return parts.flatMap((p) => { const b = textBytes(p); return [b.length, ...b]; });
  }
  // Not among the records we propose: any fixed order does, as long as both sides see the same bytes.
  return typeof data === 'string' || data instanceof Uint8Array ? textBytes(data) : textBytes(JSON.stringify(data));
}

/** Negative, zero or positive as `a` sorts before, with or after `b` (class is IN for all: type, then RDATA bytes). */
function compareRecords(a: MdnsRecord, b: MdnsRecord): number {
  const type = (TYPE_CODES[a.type] ?? 0xffff) - (TYPE_CODES[b.type] ?? 0xffff);
  if (type !== 0) return type;
  const x = rdataBytes(a);
  const y = rdataBytes(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/**
 * RFC 6762 §8.2: two hosts probe for one name at once. Each sorts the records it proposes for the name, and the
 * lists are compared record by record; the one that sorts earlier (or runs out first) loses, and its host waits a
 * second and probes again, by when the winner answers. Identical lists (our own probe, heard back) lose nothing.
 */
export function losesTieBreak(ours: readonly MdnsRecord[], theirs: readonly MdnsRecord[]): boolean {
  const a = [...ours].sort(compareRecords);
  const b = [...theirs].sort(compareRecords);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareRecords(a[i]!, b[i]!);
    if (order !== 0) return order < 0;
  }
  return a.length < b.length;
}

/**
 * RFC 6762 §9: once announced, a live record (not a goodbye, TTL 0) heard for one of our names, of a type we claim, with
 * other data than ours, is another host holding the same name: both must probe again.
 */
export function claimedByOther(ours: readonly MdnsRecord[], heard: readonly MdnsRecord[]): boolean {
  return heard.some(
    (r) => r.ttl !== 0 && ours.some((o) => o.type === r.type && sameDnsName(o.name, r.name) && compareRecords(o, r) !== 0),
  );
}
