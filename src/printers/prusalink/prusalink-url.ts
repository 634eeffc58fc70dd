// prusalink://host[:port] and prusalink+https://host[:port]?fingerprint=SHA256 plus the api_key, as the driver needs them.
import { badRequest } from '../../errors.js';
import { parseNetworkUrl } from '../network-url.js';
import type { PrusaLinkAuth } from './prusalink-http.js';

export interface PrusaLinkTarget {
  baseUrl: URL;
  fingerprint: string | null;
  /** The printer's storage uploads go to (`?storage=`, default `usb`: Buddy firmware; PrusaLink on a Pi uses `local`). */
  storage: string;
}

/** Parsed by the one network URL parser; throws a 400 naming the rule. */
export function parsePrusaLinkUrl(url: string): PrusaLinkTarget {
  const u = parseNetworkUrl(url);
  if (u.kind !== 'prusalink') throw badRequest(`invalid PrusaLink URL "${url}": the scheme must be prusalink:// or prusalink+https://`);
  return { baseUrl: new URL(u.baseUrl), fingerprint: u.fingerprint, storage: u.storage ?? 'usb' };
}

/**
 * `user:password` is a Digest login as typed (Prusa-Link on a Pi lets its user be chosen; a password holding a colon is
 * written `maker:pa:ss`); anything else is a bare secret: the password a Buddy printer's screen shows (Digest user
 * `maker`) or an API key, whichever the printer takes. Empty means no auth.
 */
export function prusaLinkAuth(apiKey: string | null | undefined): PrusaLinkAuth {
  if (!apiKey) return null;
  const colon = apiKey.indexOf(':');
  if (colon > 0) return { kind: 'digest', user: apiKey.slice(0, colon), password: apiKey.slice(colon + 1) };
  return { kind: 'secret', secret: apiKey };
}
