// Reads the API key out of an Authorization header (Bearer, or Basic with the key as user name and an empty password),
// an X-Api-Key header (what OctoPrint's and Moonraker's clients send), or Digest credentials, and says what is wrong with one it cannot use.
import { quoteInput, unauthorized, type AppError } from '../../errors.js';
import { parseDigestParams, type DigestCredentials } from './digest-auth.js';

/** What a request presented: no header, a key to verify, or a header no key can be taken from (and why, in a sentence). */
export type PresentedCredentials =
  | { kind: 'none' }
  | { kind: 'key'; key: string }
  | { kind: 'digest'; digest: DigestCredentials }
  | { kind: 'unusable'; problem: string };

const SEND = 'send "Authorization: Bearer <key>"';

function fromBasic(value: string): PresentedCredentials {
  const wrong = (): PresentedCredentials => ({
    kind: 'unusable',
    problem: `Basic credentials must be the key as user name and an empty password (base64 of "<key>:"), or ${SEND}`,
  });
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return wrong();
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // The legacy form is exactly "<key>:"; a password means it is some other credential, not ours.
  if (colon <= 0 || colon !== decoded.length - 1) return wrong();
  return { kind: 'key', key: decoded.slice(0, colon) };
}

/**
 * One reading of the header, so every 401 about it words the same case the same way. Never repeats a key back; a
 * scheme it does not take is quoted (cut to 100 characters).
 */
export function readCredentials(header: string | undefined, apiKeyHeader?: string): PresentedCredentials {
  if (header === undefined || header.trim() === '') {
    // X-Api-Key only when there is no Authorization header: that one is the explicit choice, as with the cookie.
    const key = apiKeyHeader?.trim();
    if (key === undefined || apiKeyHeader === undefined) return { kind: 'none' };
    if (key === '' || /\s/.test(key)) return { kind: 'unusable', problem: 'the X-Api-Key header must hold the key as one word' };
    return { kind: 'key', key };
  }
  const trimmed = header.trim();
  if (/^digest\s/i.test(trimmed)) {
    const digest = parseDigestParams(trimmed.slice(6));
    return 'problem' in digest ? { kind: 'unusable', problem: digest.problem } : { kind: 'digest', digest };
  }
  const parts = trimmed.split(/\s+/);
  const scheme = parts[0] as string;
  const values = parts.slice(1);
  const lower = scheme.toLowerCase();
  if (lower === 'bearer' || lower === 'basic') {
    if (values.length === 0) {
      return { kind: 'unusable', problem: `empty API key: the Authorization header says "${scheme}" and nothing after it (is the variable that holds the key set?); ${SEND}` };
    }
    if (values.length > 1) {
      return { kind: 'unusable', problem: `the Authorization header has ${values.length} words after "${scheme}"; ${SEND} with the key as one word` };
    }
    return lower === 'bearer' ? { kind: 'key', key: values[0] as string } : fromBasic(values[0] as string);
  }
  if (values.length === 0) {
    // A bare value: most often the key itself, pasted without its scheme.
    return { kind: 'unusable', problem: `the Authorization header has no scheme; ${SEND}` };
  }
  return { kind: 'unusable', problem: `unsupported Authorization scheme ${quoteInput(scheme)}: ${SEND}, or Basic with the key as user name and an empty password` };
}

/**
 * The presented key, or null when the header is absent or no key can be taken from it (treated as no credentials).
 * A Bearer token is returned as given, even if malformed, so the caller can say it is invalid.
 */
export function presentedKey(header: string | undefined, apiKeyHeader?: string): string | null {
  const c = readCredentials(header, apiKeyHeader);
  return c.kind === 'key' ? c.key : null;
}

/** The 401 for a request that needs a key and presented none it could use. */
export function missingCredentials(header: string | undefined, apiKeyHeader?: string): AppError {
  const c = readCredentials(header, apiKeyHeader);
  return unauthorized(c.kind === 'unusable' ? c.problem : `missing API key: ${SEND}`);
}
