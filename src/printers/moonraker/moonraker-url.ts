// A Moonraker connection URL (moonraker://host[:port], moonraker+https://host[:port]?fingerprint=) as the driver uses it:
// the HTTP base, the websocket address and the certificate pin (parsed by the one network URL parser).
import { badRequest } from '../../errors.js';
import { parseNetworkUrl } from '../network-url.js';

export interface MoonrakerAddress {
  /** e.g. http://printer.local:7125 (no trailing slash). */
  httpBase: string;
  /** e.g. ws://printer.local:7125/websocket. */
  wsUrl: string;
  secure: boolean;
  /** SHA-256 of the server certificate, 64 lower-case hex digits, or null when the normal chain check applies. */
  fingerprint: string | null;
}

/** Throws a 400 naming the rule a bad URL breaks. */
export function parseMoonrakerUrl(raw: string): MoonrakerAddress {
  const u = parseNetworkUrl(raw);
  if (u.kind !== 'moonraker') throw badRequest(`"${raw}" is not a Moonraker URL (expected moonraker:// or moonraker+https://)`);
  return { httpBase: u.baseUrl, wsUrl: `${u.baseUrl.replace(/^http/, 'ws')}/websocket`, secure: u.secure, fingerprint: u.fingerprint };
}
