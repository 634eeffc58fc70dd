// Checks a printer's connection_url before it is stored, so a bad URL is a 400 naming the rule, never a failed session later.
import { realpath } from 'node:fs/promises';
import { AppError, badRequest } from '../errors.js';
import { parseSimulatorOptions } from '../simulator/simulator-options.js';
import { parseTransportUrl, type TransportUrl } from '../transport/transport-url.js';
import { profileByName } from './firmware-profiles.js';
import { networkKindOf, parseNetworkUrl, type NetworkPrinterUrl } from './network-url.js';

/** A stored connection URL, parsed: a link we stream over (serial, tcp, sim) or a printer on the network. */
export type PrinterUrl = TransportUrl | NetworkPrinterUrl;

export const CONNECTION_URL_MAX = 2048;

/** A control character anywhere (C0, DEL, C1): never meaningful in a URL or a name. */
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

const fail = (why: string, details = ''): AppError => badRequest(`connection_url: ${why}`, details);

/**
 * The URL as it will be stored (trimmed) and its parsed form. A serial or tcp URL may carry `profile=NAME` (forces a
 * firmware profile; the session takes it out before the transport sees the URL); in a sim:// URL `profile=` picks the
 * simulated firmware and every other option is checked by the simulator's own parser.
 */
export function checkConnectionUrl(raw: string): { url: string; parsed: PrinterUrl } {
  // Checked before trimming, like every text field: a line break at the end is refused, not silently dropped.
  if (CONTROL_CHARS.test(raw)) throw fail('must not contain control characters');
  const url = raw.trim();
  if (url === '') throw fail('must not be empty');
  if (networkKindOf(url) !== null) {
    try {
      return { url, parsed: parseNetworkUrl(url) };
    } catch (err) {
      if (err instanceof AppError) throw fail(err.message, err.details);
      throw err;
    }
  }
  let transportUrl = url;
  const q = url.indexOf('?');
  if (q !== -1 && !/^sim:/i.test(url)) {
    const params = new URLSearchParams(url.slice(q + 1));
    const profile = params.get('profile');
    if (profile !== null) {
      try {
        profileByName(profile);
      } catch (err) {
        throw fail((err as Error).message);
      }
      params.delete('profile');
      const rest = params.toString();
      transportUrl = url.slice(0, q) + (rest ? `?${rest}` : '');
    }
  }
  let parsed: TransportUrl;
  try {
    parsed = parseTransportUrl(transportUrl);
  } catch (err) {
    if (err instanceof AppError) throw fail(err.message.replace(`"${transportUrl}"`, `"${url}"`), err.details);
    throw fail((err as Error).message);
  }
  if (parsed.kind === 'sim') {
    try {
      parseSimulatorOptions(parsed.url.searchParams);
    } catch (err) {
      throw fail(`invalid simulator option: ${(err as Error).message}`);
    }
  }
  return { url, parsed };
}

/** The device a path finally names (a by-id link resolves to /dev/ttyACM0); the path itself when it cannot be resolved. */
export async function resolveDevice(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path;
  }
}

/**
 * What a URL connects to, for "is this link already used": a serial device whichever path names it, a TCP endpoint
 * whatever the spelling of the host's case, and for sim:// the URL itself (every sim:// printer is its own simulator).
 */
export async function linkIdentity(url: string, parsed?: PrinterUrl): Promise<string> {
  if (!parsed) {
    try {
      parsed = checkConnectionUrl(url).parsed;
    } catch {
      // A stored URL this version cannot parse still names itself.
      return url;
    }
  }
  switch (parsed.kind) {
    case 'serial':
      return `serial:${await resolveDevice(parsed.path)}`;
    case 'tcp':
      return `tcp:${parsed.host.toLowerCase()}:${parsed.port}`;
    case 'sim':
      return url;
    default:
      // One network printer answers at one address, whichever spelling or scheme variant names it.
      return `${parsed.kind}:${parsed.host.toLowerCase()}:${parsed.port}`;
  }
}
