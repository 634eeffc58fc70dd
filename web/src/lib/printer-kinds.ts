// Pure: the kinds of printer the dashboard offers, how each one's connection_url is written, and a URL taken apart into
// the form's fields and put back together (the server's src/printers/network-url.ts decides; test/web checks we agree).
import type { PrinterRecord } from '../../../src/printers/printer-record.js';

export type PrinterKind = PrinterRecord['kind'];
export type NetworkKind = Exclude<PrinterKind, 'serial'>;
export type OfflineReason = NonNullable<PrinterRecord['offline_reason']>;

export interface KindInfo {
  label: string;
  /** What the URL looks like, as the input's placeholder. */
  placeholder: string;
  /** One or two sentences on the URL form. */
  urlHint: string;
  /** The api_key field's label; null: this kind takes no key. */
  keyLabel: string | null;
  keyHint: string;
  /** The port the server assumes when the URL names none (plain, https). */
  ports: { http: number; https: number } | null;
}

const PIN = 'Tick HTTPS for the +https form; a self-signed certificate is trusted only when its SHA-256 fingerprint is pinned (?fingerprint=).';

export const KINDS: Record<PrinterKind, KindInfo> = {
  serial: {
    label: 'USB / serial',
    placeholder: 'serial:///dev/ttyACM0',
    urlHint: 'serial://DEVICE (USB, optional ?baud=115200), tcp://HOST:PORT (a serial bridge) or sim://NAME (a virtual printer for trying things out).',
    keyLabel: null,
    keyHint: '',
    ports: null,
  },
  moonraker: {
    label: 'Moonraker (Klipper)',
    placeholder: 'moonraker://voron.local:7125',
    urlHint: `moonraker://HOST[:PORT]: Moonraker's port, 7125 unless given (7130 with HTTPS). ${PIN}`,
    keyLabel: 'API key',
    keyHint: 'Moonraker’s API key (Mainsail or Fluidd: Settings, or moonraker.conf); leave empty when Moonraker trusts this server’s address.',
    ports: { http: 7125, https: 7130 },
  },
  octoprint: {
    label: 'OctoPrint',
    placeholder: 'octoprint://octopi.local',
    urlHint: `octoprint://HOST[:PORT][/PATH]: port 80 unless given (443 with HTTPS); a path when OctoPrint sits behind a prefix. ${PIN}`,
    keyLabel: 'API key',
    keyHint: 'An application key from OctoPrint (Settings → Application Keys).',
    ports: { http: 80, https: 443 },
  },
  prusalink: {
    label: 'PrusaLink',
    placeholder: 'prusalink://prusa-mk4.local',
    urlHint: `prusalink://HOST[:PORT]: port 80 unless given (443 with HTTPS). ${PIN}`,
    keyLabel: 'user:password or API key',
    keyHint: 'The password from the printer’s screen (Settings → Network → PrusaLink) as it is: its user is always maker. Prusa-Link on a Raspberry Pi: its API key, or user:password.',
    ports: { http: 80, https: 443 },
  },
  bambu: {
    label: 'Bambu Lab (LAN mode)',
    placeholder: 'bambu://192.168.1.30?serial=01P00A000000001',
    urlHint: 'bambu://HOST[:PORT]?serial=SERIAL: MQTT over TLS on 8883 unless given, files over FTPS on 990 (&ftp_port= to change it). Its certificate is pinned on first contact unless &fingerprint= names it.',
    keyLabel: 'LAN access code',
    keyHint: 'The 8-character access code on the printer’s screen (Settings → WLAN or Network, LAN-only mode; Developer Mode on firmware from 2025). It is sealed on this server and never shown again.',
    ports: { http: 8883, https: 8883 },
  },
};

export const KIND_ORDER: readonly PrinterKind[] = ['serial', 'moonraker', 'octoprint', 'prusalink', 'bambu'];

/** The network form's fields; strings as typed (port may be empty: the kind's default). */
export interface NetworkFields {
  https: boolean;
  host: string;
  port: string;
  /** OctoPrint only: the path prefix, e.g. /octoprint. */
  path: string;
  fingerprint: string;
  /** Bambu only: the printer's serial number (its MQTT topics are named by it). */
  serial?: string;
  /** Bambu only: the FTPS port when it is not 990. */
  ftpPort?: string;
}

/** Bambu's URL is always TLS and takes these query parameters; the other kinds take only a pin. */
const BAMBU_PARAMS = ['serial', 'fingerprint', 'ftp_port'];

export const EMPTY_NETWORK: NetworkFields = { https: false, host: '', port: '', path: '', fingerprint: '' };

const SCHEME = /^([a-z]+)(\+https)?:\/\//i;

/** The kind a URL names (serial for every scheme that is not a network printer's), as the server decides it. */
export function kindOfUrl(url: string): PrinterKind {
  const kind = SCHEME.exec(url.trim())?.[1]?.toLowerCase();
  return kind === 'moonraker' || kind === 'octoprint' || kind === 'prusalink' || kind === 'bambu' ? kind : 'serial';
}

/** The URL the fields describe; '' while no host is typed. Kept as typed otherwise: the server names what is wrong. */
export function buildNetworkUrl(kind: NetworkKind, f: NetworkFields): string {
  const host = f.host.trim();
  if (host === '') return '';
  const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const port = f.port.trim() ? `:${f.port.trim()}` : '';
  const rawPath = kind === 'octoprint' ? f.path.trim().replace(/\/+$/, '') : '';
  const path = rawPath && !rawPath.startsWith('/') ? `/${rawPath}` : rawPath;
  if (kind === 'bambu') {
    // Always TLS (no +https form); the serial first, as printers are listed by it. Empty parameters are left out.
    const query = [['serial', f.serial], ['fingerprint', f.fingerprint], ['ftp_port', f.ftpPort]]
      .map(([k, v]) => [k, (v ?? '').trim()])
      .filter(([, v]) => v !== '')
      .map(([k, v]) => `${k}=${v}`);
    return `bambu://${hostPart}${port}${query.length ? `?${query.join('&')}` : ''}`;
  }
  const fp = f.https && f.fingerprint.trim() ? `?fingerprint=${f.fingerprint.trim()}` : '';
  return `${kind}${f.https ? '+https' : ''}://${hostPart}${port}${path}${fp}`;
}

/**
 * A pasted or stored network URL as fields, so the builder shows what it says; null when it cannot be read that way
 * (the text stays in the URL field and the server explains it).
 */
export function parseNetworkUrl(url: string): { kind: NetworkKind; fields: NetworkFields } | null {
  const text = url.trim();
  const m = SCHEME.exec(text);
  const kind = kindOfUrl(text);
  if (!m || kind === 'serial') return null;
  const https = m[2] !== undefined;
  let u: URL;
  try {
    u = new URL(`http://${text.slice(m[0].length)}`);
  } catch {
    return null;
  }
  if (!u.hostname || u.username || u.password || u.hash) return null;
  const params = [...u.searchParams.keys()];
  const known = kind === 'bambu' ? BAMBU_PARAMS : ['fingerprint'];
  if (params.some((k) => !known.includes(k))) return null;
  if (kind === 'bambu' && https) return null;
  const path = u.pathname.replace(/\/+$/, '');
  if (path !== '' && kind !== 'octoprint') return null;
  const fields: NetworkFields = { https, host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port, path, fingerprint: u.searchParams.get('fingerprint') ?? '' };
  if (kind === 'bambu') Object.assign(fields, { serial: u.searchParams.get('serial') ?? '', ftpPort: u.searchParams.get('ftp_port') ?? '' });
  return { kind, fields };
}

/**
 * A Bambu printer's reasons say what to do: its LAN mode, its access code and its pinned certificate are things the owner
 * sets on the printer's screen or here, and none of them is named like the other kinds' API key.
 */
const BAMBU_WORDS: Partial<Record<OfflineReason, string>> = {
  unreachable: 'Unreachable — nothing answers at the address. Check that the printer is on, on this network, in LAN-only mode (with Developer Mode on firmware from 2025), and that its address has not changed.',
  auth_failed: 'The LAN access code was refused. Read it again on the printer’s screen (it changes when LAN mode is switched off and on) and enter it in the printer’s settings.',
  tls_error: 'The printer’s certificate is not the pinned one. If the printer was reset or replaced, re-pin its certificate on its page; otherwise check that this address is really your printer.',
};

/** Why an offline printer cannot be used, in words (the server's offline_reason; the firmware's own message for a stop). */
export function offlineWords(p: Pick<PrinterRecord, 'kind' | 'offline_reason' | 'error'>): string | null {
  if (p.kind === 'bambu' && p.offline_reason !== null && p.offline_reason in BAMBU_WORDS) return BAMBU_WORDS[p.offline_reason]!;
  switch (p.offline_reason) {
    case null:
      return null;
    case 'unreachable':
      return 'Unreachable — nothing answers at the address';
    case 'auth_failed':
      return p.kind === 'prusalink' ? 'The user:password or API key was refused' : 'The API key was refused';
    case 'firmware_error':
      return `The firmware stopped: ${p.error?.message ?? 'no message'}`;
    case 'printer_disconnected':
      return `${p.kind === 'serial' ? 'The host' : KINDS[p.kind].label.replace(/ \(.*\)$/, '')} is up but its printer is not connected`;
    case 'tls_error':
      return 'TLS: the certificate is not trusted (pin its fingerprint)';
    case 'host_error':
      return 'The server thread driving it crashed — it restarts and reconnects by itself';
    case 'node_unavailable':
      return `Its node is unavailable: ${p.error?.message ?? 'no state from it'}`;
  }
}

/** "printing part.gcode (started on the printer)" for a print we did not start. */
export const externalJobWords = (job: NonNullable<PrinterRecord['external_job']>): string => `printing ${job.file_name} (started on the printer)`;
