// Network printer URLs (moonraker://, octoprint://, prusalink:// and their +https forms, bambu://) parsed into what a driver needs:
// the kind, the base HTTP(S) address and an optional pinned certificate fingerprint, with clear errors.
import { badRequest } from '../errors.js';

export type NetworkKind = 'moonraker' | 'octoprint' | 'prusalink' | 'bambu';
export const NETWORK_KINDS: readonly NetworkKind[] = ['moonraker', 'octoprint', 'prusalink', 'bambu'];

/** Each API's usual port when the URL names none (Moonraker listens on 7125; OctoPrint and PrusaLink on the web port). */
const DEFAULT_PORTS: Record<NetworkKind, { http: number; https: number }> = {
  moonraker: { http: 7125, https: 7130 },
  octoprint: { http: 80, https: 443 },
  prusalink: { http: 80, https: 443 },
  // Bambu: MQTT over TLS (it has no plain form); the FTPS port (990) is `ftp_port`.
  bambu: { http: 8883, https: 8883 },
};

export interface NetworkPrinterUrl {
  kind: NetworkKind;
  secure: boolean;
  host: string;
  port: number;
  /** Where the API lives, e.g. http://192.168.1.20:7125 (with OctoPrint's path prefix when the URL has one). */
  baseUrl: string;
  /** SHA-256 of the server certificate (64 lowercase hex digits) that is trusted even when self-signed; null: verify normally. */
  fingerprint: string | null;
  /** PrusaLink only: where uploads go (`usb`, or `local` for printers without a USB stick); null when not given. */
  storage: 'usb' | 'local' | null;
  /** Bambu only: the printer's serial (its MQTT topics are named by it) and its FTPS port (default 990). */
  serial: string | null;
  ftpPort: number | null;
}

const EXAMPLES = 'moonraker://host[:port], octoprint://host[:port][/path], prusalink://host; +https (e.g. moonraker+https://host?fingerprint=<sha256>); bambu://host?serial=<serial>[&fingerprint=<sha256>]';

const invalid = (url: string, why: string): Error => badRequest(`invalid connection URL "${url}": ${why}`, `network forms: ${EXAMPLES}`);

/** What a printer is, as the API shows it (`kind`): serial covers every link we stream over (serial, tcp, sim). */
export type PrinterKind = 'serial' | NetworkKind;

export const printerKindOf = (url: string): PrinterKind => networkKindOf(url) ?? 'serial';

/** What a file is: text G-code, Prusa's binary container (.bgcode), or a sliced 3MF (.gcode.3mf). */
export type FileFormat = 'gcode' | 'bgcode' | '3mf';

/**
 * The formats a printer of this kind prints: only PrusaLink printers read binary G-code and only Bambu printers sliced
 * 3MF (each prints its own copy). The Bambu kind is compared as text so this holds before and after it joins the kinds.
 */
export const printableFormats = (kind: PrinterKind): readonly FileFormat[] =>
  kind === 'prusalink' ? ['gcode', 'bgcode'] : (kind as string) === 'bambu' ? ['3mf'] : ['gcode'];

/**
 * The name a network printer stores a job's upload under: the requested name (our job id and the file's hash) with the
 * extension of what the file really is, since printers pick the reader by extension.
 */
export function uploadName(req: { jobId: string; remoteName?: string }, ext: 'gcode' | 'bgcode' | 'gcode.3mf'): string {
  return `${(req.remoteName ?? req.jobId).replace(/\.(b?gcode|gcode\.3mf)$/i, '')}.${ext}`;
}

/** The URL with `fingerprint=` set to this SHA-256 (the pin a first contact found), every other part kept. */
export function withFingerprint(raw: string, fingerprint: string): string {
  const text = raw.trim();
  const [head, query = ''] = text.split('?', 2) as [string, string?];
  const params = query.split('&').filter((p) => p !== '' && !/^fingerprint=/i.test(p));
  params.push(`fingerprint=${fingerprint.replace(/:/g, '').toLowerCase()}`);
  return `${head}?${params.join('&')}`;
}

/** The network kind a URL names, or null for the other schemes (serial, tcp, sim). */
export function networkKindOf(url: string): NetworkKind | null {
  const m = /^([a-z]+)(\+https)?:\/\//i.exec(url.trim());
  const kind = m?.[1]?.toLowerCase();
  return kind && (NETWORK_KINDS as readonly string[]).includes(kind) ? (kind as NetworkKind) : null;
}

/** Parses a network printer URL; throws a 400 naming the rule. */
export function parseNetworkUrl(raw: string): NetworkPrinterUrl {
  const text = raw.trim();
  const m = /^([a-z]+)(\+https)?:\/\//i.exec(text);
  const kind = networkKindOf(text);
  if (!m || !kind) throw invalid(text, 'not a network printer scheme');
  const secure = m[2] !== undefined;
  let url: URL;
  try {
    url = new URL(`${secure ? 'https' : 'http'}://${text.slice(m[0].length)}`);
  } catch {
    throw invalid(text, 'the host part is not a valid address');
  }
  if (!url.hostname) throw invalid(text, 'a host is required');
  if (url.username || url.password) throw invalid(text, 'put credentials in api_key, not in the URL');
  if (url.hash) throw invalid(text, 'a #fragment means nothing here');
  if (kind !== 'octoprint' && url.pathname !== '/' && url.pathname !== '') throw invalid(text, `a ${kind} URL takes no path`);
  let fingerprint: string | null = null;
  let storage: 'usb' | 'local' | null = null;
  let serial: string | null = null;
  let ftpPort: number | null = null;
  const known = kind === 'prusalink' ? ['fingerprint', 'storage'] : kind === 'bambu' ? ['serial', 'fingerprint', 'ftp_port'] : ['fingerprint'];
  if (kind === 'bambu' && secure) throw invalid(text, 'bambu:// is always TLS: write bambu://host?serial=...');
  for (const [key, value] of url.searchParams) {
    if (!known.includes(key)) throw invalid(text, `unknown parameter "${key}" (known: ${known.join(', ')})`);
    if (key === 'serial') {
      if (!/^[0-9A-Za-z]{4,32}$/.test(value)) throw invalid(text, 'serial is the printer\'s serial number (letters and digits)');
      serial = value;
      continue;
    }
    if (key === 'ftp_port') {
      const n = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
      if (!(n >= 1 && n <= 65535)) throw invalid(text, 'ftp_port is a port number');
      ftpPort = n;
      continue;
    }
    if (key === 'storage') {
      // PrusaLink keeps prints on the USB stick (usb, MK4/XL/MINI) or in the printer's own storage (local).
      if (value !== 'usb' && value !== 'local') throw invalid(text, 'storage is usb or local');
      storage = value;
      continue;
    }
    if (!secure && kind !== 'bambu') throw invalid(text, `fingerprint pins a certificate: use ${kind}+https://`);
    const hex = value.replace(/:/g, '').toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(hex)) throw invalid(text, 'fingerprint must be the certificate\'s SHA-256: 64 hex digits (colons allowed)');
    fingerprint = hex;
  }
  if (kind === 'bambu' && serial === null) throw invalid(text, 'a Bambu printer needs its serial: bambu://host?serial=<serial> (its MQTT topics are named by it)');
  // Read from the text: URL drops a port equal to http's or https's own default (moonraker://host:80 means port 80).
  const authority = text.slice(m[0].length).split(/[/?#]/)[0]!.replace(/^.*@/, '');
  const explicit = /(?:^[^:[\]]*|\])(?::(\d+))$/.exec(authority)?.[1];
  const port = explicit !== undefined ? Number(explicit) : DEFAULT_PORTS[kind][secure ? 'https' : 'http'];
  const path = url.pathname.replace(/\/+$/, '');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return { kind, secure, host, port, baseUrl: `${secure ? 'https' : 'http'}://${hostPart}:${port}${path}`, fingerprint, storage, serial, ftpPort: kind === 'bambu' ? (ftpPort ?? 990) : null };
}
