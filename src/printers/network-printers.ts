// Pure: mDNS service records -> network printers to offer (kind, connection_url), and which stored printer uses each.
import type { MdnsServiceRecord } from '../transport/mdns-browser.js';
import { classifyCodePoint } from '../text-safety.js';

export const NETWORK_KINDS = ['moonraker', 'octoprint', 'prusalink'] as const;
export type NetworkKind = (typeof NETWORK_KINDS)[number];

/**
 * The DNS-SD type each kind announces (all `._tcp`): Moonraker's zeroconf component `_moonraker._tcp`; OctoPrint's
 * bundled discovery plugin `_octoprint._tcp` (and `_http._tcp`, which says nothing about what serves it); Prusa's
 * Buddy firmware (MK4, MINI, XL, CORE One) `_prusalink._tcp` on port 80, as does PrusaLink on a Raspberry Pi.
 */
export const SERVICE_TYPE_OF: Record<NetworkKind, string> = { moonraker: 'moonraker', octoprint: 'octoprint', prusalink: 'prusalink' };

export interface DiscoveredNetworkPrinter {
  kind: NetworkKind;
  /** The announced instance name, e.g. "Voron @ voron" (control and bidi characters removed). */
  name: string;
  /** The announced host name, e.g. "voron.local". */
  host: string;
  /** The announced port (Moonraker: its HTTP port even when it also serves HTTPS). */
  port: number;
  addresses: string[];
  /** What to store as the printer's connection_url. */
  connection_url: string;
  /** The software version from the TXT record (Moonraker, OctoPrint), or null. */
  version: string | null;
  /** The stored printer whose connection_url names this host and port, or null. */
  in_use_by: string | null;
}

const NAME_MAX = 100;
const VERSION_MAX = 50;
const PATH_MAX = 200;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * The TXT record as a map: keys compare case-insensitively and the first of a repeated key wins (RFC 6763 §6.4);
 * a key without '=' is a flag with an empty value.
 */
export function parseTxt(entries: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const key = (eq === -1 ? entry : entry.slice(0, eq)).toLowerCase();
    if (key === '' || out.has(key)) continue;
    out.set(key, eq === -1 ? '' : entry.slice(eq + 1));
  }
  return out;
}

/** Announced text is anyone's on the LAN: unsafe characters go, the length is capped. */
function cleanText(text: string, max: number): string {
  let out = '';
  for (const ch of text) if (classifyCodePoint(ch.codePointAt(0) as number, false) === null) out += ch;
  return [...out.trim()].slice(0, max).join('');
}

const cleanHost = (host: string): string => host.replace(/\.$/, '').toLowerCase();
/** A DNS host name (labels of letters, digits and hyphens), so an announced name is safe inside a URL. */
const isHostName = (host: string): boolean => {
  const labels = host.replace(/\.$/, '').split('.');
  return host.length <= 253 && labels.every((l) => /^[A-Za-z0-9-]{1,63}$/.test(l));
};
const validPort = (port: unknown): port is number => typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535;
const urlHost = (address: string): string => (address.includes(':') ? `[${address}]` : address);

/**
 * The host to write in connection_url: the address the answer came from (reachable from here by definition, where
 * the announced addresses may include the printer host's other networks, e.g. a Docker bridge), else an announced
 * IPv4 address, a global IPv6 one, else the host name (needs a resolver that knows .local names).
 */
function connectHost(record: MdnsServiceRecord, host: string): string | null {
  if (record.source_address && (IPV4.test(record.source_address) || record.source_address.includes(':'))) return record.source_address;
  const v4 = record.addresses.find((a) => IPV4.test(a));
  if (v4) return v4;
  const v6 = record.addresses.find((a) => a.includes(':') && !/^fe80:/i.test(a));
  if (v6) return v6;
  return host === '' ? null : host;
}

/** OctoPrint's TXT `path` (its reverse-proxy prefix) as a URL path: "" for the root, else "/seg/seg" percent-encoded. */
function octoprintPath(path: string | undefined): string {
  if (path === undefined || path.length > PATH_MAX) return '';
  const segments = path.split('/').filter((s) => s !== '' && s !== '.' && s !== '..');
  return segments.map((s) => `/${encodeURIComponent(s)}`).join('');
}

/** The URL for one answered service, and the ports a stored URL may name to mean the same service. */
function urlFor(kind: NetworkKind, host: string, port: number, txt: Map<string, string>): { url: string; ports: number[] } {
  const plain = (p: number): string => (p === 80 ? '' : `:${p}`);
  const tls = (p: number): string => (p === 443 ? '' : `:${p}`);
  switch (kind) {
    case 'moonraker': {
      // Moonraker puts its HTTPS port in the TXT record when it serves HTTPS (and an empty value when not).
      const https = Number(txt.get('https_port'));
      if (validPort(https)) return { url: `moonraker+https://${host}${tls(https)}`, ports: [port, https] };
      return { url: `moonraker://${host}${plain(port)}`, ports: [port] };
    }
    case 'octoprint': {
      const path = octoprintPath(txt.get('path'));
      if (port === 443) return { url: `octoprint+https://${host}${path}`, ports: [port] };
      return { url: `octoprint://${host}${plain(port)}${path}`, ports: [port] };
    }
    case 'prusalink':
      if (port === 443) return { url: `prusalink+https://${host}`, ports: [port] };
      return { url: `prusalink://${host}${plain(port)}`, ports: [port] };
  }
}

/** A discovered printer and the endpoints (host names and addresses with ports) that identify it. */
export interface NetworkCandidate {
  printer: Omit<DiscoveredNetworkPrinter, 'in_use_by'>;
  hosts: string[];
  ports: number[];
}

/** One answered service as a printer to offer; null for a type we do not drive or an answer we cannot use. */
export function toCandidate(record: MdnsServiceRecord): NetworkCandidate | null {
  const kind = NETWORK_KINDS.find((k) => SERVICE_TYPE_OF[k] === record.type.toLowerCase());
  if (!kind || !validPort(record.port)) return null;
  const host = isHostName(record.host) ? cleanHost(record.host) : '';
  const target = connectHost(record, host);
  if (target === null) return null;
  const txt = parseTxt(record.txt);
  const { url, ports } = urlFor(kind, urlHost(target), record.port, txt);
  const version = txt.get('version');
  const addresses = [...new Set(record.addresses.map(cleanHost))];
  return {
    printer: {
      kind,
      name: cleanText(record.name, NAME_MAX) || host || target,
      host,
      port: record.port,
      addresses,
      connection_url: url,
      version: version ? cleanText(version, VERSION_MAX) || null : null,
    },
    hosts: [...new Set([target, host, ...addresses].filter((h) => h !== '').map(cleanHost))],
    ports,
  };
}

/** Port a stored URL means when it names none; schemes not listed here must name theirs. */
const DEFAULT_PORTS: Record<string, number> = {
  moonraker: 7125,
  'moonraker+https': 7130,
  octoprint: 80,
  'octoprint+https': 443,
  prusalink: 80,
  'prusalink+https': 443,
};

/** The host and port a stored connection_url connects to, or null (serial devices, simulators, unparsable). */
export function endpointOf(connectionUrl: string): { host: string; port: number } | null {
  let url: URL;
  try {
    url = new URL(connectionUrl);
  } catch {
    return null;
  }
  if (url.hostname === '') return null;
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  const port = url.port === '' ? DEFAULT_PORTS[scheme] : Number(url.port);
  if (port === undefined) return null;
  return { host: cleanHost(url.hostname.replace(/^\[(.*)\]$/, '$1')), port };
}

/** Code-point order: the same on every machine, unlike localeCompare's. */
const order = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const sameEndpoint = (a: NetworkCandidate, b: NetworkCandidate): boolean =>
  a.ports.some((p) => b.ports.includes(p)) && a.hosts.some((h) => b.hosts.includes(h));

/**
 * The printers to offer, sorted by kind then name (ignoring case): PrusaLink on a Raspberry Pi also announces `_octoprint._tcp` (for
 * old slicers) on the same port, so an OctoPrint answer from an endpoint that announces PrusaLink is dropped, as is
 * the same kind answered twice from one endpoint. A printer is in use when a stored connection_url names one of its
 * host names or addresses with one of its ports, whatever the URL's scheme.
 */
export function networkPrinters(
  records: readonly MdnsServiceRecord[],
  stored: ReadonlyArray<{ id: string; connection_url: string }>,
): DiscoveredNetworkPrinter[] {
  const candidates = records.map(toCandidate).filter((c): c is NetworkCandidate => c !== null);
  const kept: NetworkCandidate[] = [];
  for (const c of candidates) {
    if (c.printer.kind === 'octoprint' && candidates.some((o) => o.printer.kind === 'prusalink' && sameEndpoint(o, c))) continue;
    if (kept.some((k) => k.printer.kind === c.printer.kind && sameEndpoint(k, c))) continue;
    kept.push(c);
  }
  const endpoints = stored.map((p) => ({ id: p.id, at: endpointOf(p.connection_url) }));
  return kept
    .map((c) => ({
      ...c.printer,
      in_use_by: endpoints.find((e) => e.at !== null && c.hosts.includes(e.at.host) && c.ports.includes(e.at.port))?.id ?? null,
    }))
    .sort((a, b) => order(a.kind, b.kind) || order(a.name.toLowerCase(), b.name.toLowerCase()) || order(a.connection_url, b.connection_url));
}
