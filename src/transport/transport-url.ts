// Printer connection URLs (serial://, a bare /dev path, tcp://, sim://) parsed into typed descriptions, with clear errors.
import { badRequest } from '../errors.js';

/** Rates a serial URL may name: the termios standard set plus 250000 (the usual Marlin rate) and the common fast ones. */
export const STANDARD_BAUD_RATES: readonly number[] = [
  2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 250000, 460800, 500000, 921600, 1000000, 1500000, 2000000,
];

/** Tried in this order when a serial URL names no baud: most Marlin boards ship at 250000, the rest at 115200. */
export const DEFAULT_BAUD_CANDIDATES: readonly number[] = [250000, 115200];

export interface SerialTransportUrl {
  kind: 'serial';
  /** Absolute device path, e.g. /dev/ttyACM0 or /dev/serial/by-id/usb-... */
  path: string;
  /** The rate the URL names; undefined means "detect" (see baudCandidates). */
  baud: number | undefined;
  /** Rates to try in order: the named one alone, or the defaults when none is named. */
  baudCandidates(): number[];
}

export interface TcpTransportUrl {
  kind: 'tcp';
  host: string;
  port: number;
}

export interface SimTransportUrl {
  kind: 'sim';
  /** The virtual printer's name (the URL's host part). */
  name: string;
  /** Query parameters as given; the simulator validates them. */
  params: Record<string, string>;
  url: URL;
}

export type TransportUrl = SerialTransportUrl | TcpTransportUrl | SimTransportUrl;

const SUPPORTED = 'serial:///dev/ttyACM0?baud=250000, /dev/ttyACM0, tcp://host:port or sim://name';

function invalid(url: string, why: string): Error {
  return badRequest(`invalid connection URL "${url}": ${why}`, `supported forms: ${SUPPORTED}`);
}

function parseBaud(url: string, raw: string | null): number | undefined {
  if (raw === null) return undefined;
  const baud = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!STANDARD_BAUD_RATES.includes(baud)) {
    throw invalid(url, `baud "${raw}" is not a standard rate (use one of ${STANDARD_BAUD_RATES.join(', ')})`);
  }
  return baud;
}

function rejectUnknownParams(url: string, params: URLSearchParams, known: readonly string[]): void {
  for (const key of params.keys()) {
    if (!known.includes(key)) {
      const allowed = known.length > 0 ? `known: ${known.join(', ')}` : 'this kind takes none';
      throw invalid(url, `unknown parameter "${key}" (${allowed})`);
    }
  }
  for (const key of known) {
    if (params.getAll(key).length > 1) throw invalid(url, `parameter "${key}" is given twice`);
  }
}

function serialDescription(url: string, path: string, query: URLSearchParams): SerialTransportUrl {
  if (!path.startsWith('/') || path === '/' || path.endsWith('/')) {
    throw invalid(url, 'a serial URL needs an absolute device path, e.g. serial:///dev/ttyACM0');
  }
  if (path.includes('\0')) throw invalid(url, 'the device path contains a NUL byte');
  rejectUnknownParams(url, query, ['baud']);
  const baud = parseBaud(url, query.get('baud'));
  return {
    kind: 'serial',
    path,
    baud,
    baudCandidates: () => (baud === undefined ? [...DEFAULT_BAUD_CANDIDATES] : [baud]),
  };
}

function parseUrlObject(raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw invalid(raw, 'not a URL');
  }
}

/** Parses a connection URL; throws a 400 AppError naming what is wrong. */
export function parseTransportUrl(raw: string): TransportUrl {
  const url = typeof raw === 'string' ? raw.trim() : '';
  if (url === '') throw invalid(String(raw), 'empty');

  if (url.startsWith('/')) {
    // A bare device path; "?baud=" is accepted here too since device names never contain "?".
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    return serialDescription(url, path, new URLSearchParams(q === -1 ? '' : url.slice(q + 1)));
  }

  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) throw invalid(url, 'no scheme');

  switch (scheme) {
    case 'serial': {
      const parsed = parseUrlObject(url);
      if (parsed.host !== '') {
        throw invalid(url, `"${parsed.host}" is read as a host: write the path after three slashes, serial:///dev/...`);
      }
      let path: string;
      try {
        path = decodeURIComponent(parsed.pathname);
      } catch {
        throw invalid(url, 'the device path has a bad %-escape');
      }
      return serialDescription(url, path, parsed.searchParams);
    }
    case 'tcp': {
      const parsed = parseUrlObject(url);
      const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
      if (host === '') throw invalid(url, 'missing host, expected tcp://host:port');
      if (parsed.port === '') throw invalid(url, 'missing port, expected tcp://host:port (ser2net and ESP3D have no default)');
      if (parsed.pathname !== '' && parsed.pathname !== '/') throw invalid(url, 'a tcp URL takes no path');
      if (parsed.username !== '' || parsed.password !== '') throw invalid(url, 'a tcp URL takes no credentials');
      if (parsed.hash !== '') throw invalid(url, 'a tcp URL takes no #fragment');
      rejectUnknownParams(url, parsed.searchParams, []);
      const port = Number(parsed.port);
      if (port < 1 || port > 65535) throw invalid(url, `port ${parsed.port} is out of range 1-65535`);
      return { kind: 'tcp', host, port };
    }
    case 'sim': {
      const parsed = parseUrlObject(url);
      if (parsed.hostname === '') throw invalid(url, 'missing printer name, expected sim://name');
      return { kind: 'sim', name: parsed.hostname, params: Object.fromEntries(parsed.searchParams), url: parsed };
    }
    default:
      throw invalid(url, `unknown scheme "${scheme}:"`);
  }
}

