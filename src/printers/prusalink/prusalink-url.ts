// prusalink://host[:port] and prusalink+https://host[:port]?fingerprint=SHA256 plus the api_key, as the driver needs them.
import { AppError } from '../../errors.js';
import type { PrusaLinkAuth } from './prusalink-http.js';

export interface PrusaLinkTarget {
  baseUrl: URL;
  fingerprint: string | null;
  /** The printer's storage uploads go to (`?storage=`, default `usb`: Buddy firmware; PrusaLink on a Pi uses `local`). */
  storage: string;
}

const bad = (url: string, why: string): AppError => new AppError(400, 'invalid_printer', `invalid PrusaLink URL "${url}": ${why}`);

export function parsePrusaLinkUrl(url: string): PrusaLinkTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw bad(url, 'not a URL');
  }
  const secure = u.protocol === 'prusalink+https:';
  if (!secure && u.protocol !== 'prusalink:') throw bad(url, 'the scheme must be prusalink:// or prusalink+https://');
  if (u.hostname === '') throw bad(url, 'no host');
  const fingerprint = u.searchParams.get('fingerprint');
  if (fingerprint !== null && !/^([0-9a-f]{2}:?){31}[0-9a-f]{2}$/i.test(fingerprint)) {
    throw bad(url, 'fingerprint must be the certificate\'s SHA-256 in hex (64 digits, colons allowed)');
  }
  if (fingerprint !== null && !secure) throw bad(url, 'a fingerprint needs prusalink+https://');
  const storage = u.searchParams.get('storage') ?? 'usb';
  if (!/^[a-z0-9_-]+$/i.test(storage)) throw bad(url, 'storage must be a plain name such as usb or local');
  const baseUrl = new URL(`${secure ? 'https' : 'http'}://${u.host}`);
  return { baseUrl, fingerprint, storage };
}

/** `user:password` is the printer's Digest login; anything else is an X-Api-Key; empty means no auth. */
export function prusaLinkAuth(apiKey: string | null | undefined): PrusaLinkAuth {
  if (!apiKey) return null;
  const colon = apiKey.indexOf(':');
  if (colon > 0) return { kind: 'digest', user: apiKey.slice(0, colon), password: apiKey.slice(colon + 1) };
  return { kind: 'api-key', key: apiKey };
}
