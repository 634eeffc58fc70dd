// Reads the API key out of an Authorization header: Bearer, or Basic with the key as user name and an empty password.
import type { AppError } from '../errors.js';
import { unauthorized } from './auth-context.js';

/**
 * The presented key, or null when the header is absent or uses another scheme/shape (treated as no credentials).
 * A Bearer token is returned as given, even if malformed, so the caller can say it is invalid.
 */
export function presentedKey(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^([A-Za-z]+) +(\S+) *$/.exec(header);
  if (!match) return null;
  const scheme = (match[1] as string).toLowerCase();
  const value = match[2] as string;
  if (scheme === 'bearer') return value;
  if (scheme !== 'basic') return null;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return null;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // The legacy form is exactly "<key>:"; a password means it is some other credential, not ours.
  if (colon <= 0 || colon !== decoded.length - 1) return null;
  return decoded.slice(0, colon);
}

/** The 401 for a request that needs a key and presented none we could use. */
export const missingCredentials = (header: string): AppError =>
  unauthorized(
    header
      ? 'unsupported Authorization header: send "Bearer <key>", or Basic with the key as user name and an empty password'
      : 'missing API key: send Authorization: Bearer <key>',
  );
