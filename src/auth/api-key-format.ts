// The API key string: `svc_<env>_` + random base62, its SHA-256 hash (the only thing stored) and its display prefix.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RunEnvironment } from '../config.js';
import { randomBase62 } from '../ids.js';

/** 40 base62 characters: about 238 bits, far beyond guessing (the contract asks for at least 32). */
export const KEY_RANDOM_LENGTH = 40;
/** Random characters shown in the display prefix: enough to tell keys apart, far too few to use one. */
const PREFIX_RANDOM_CHARS = 6;

const KEY_PATTERN = /^svc_(live|test|dev)_([0-9A-Za-z]{32,128})$/;

export function mintKeyString(env: RunEnvironment): string {
  return `svc_${env}_${randomBase62(KEY_RANDOM_LENGTH)}`;
}

/** Hex SHA-256: right for high-entropy keys (no salt or slow hash needed, and lookups stay one index probe). */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** e.g. "svc_live_Ab12Cd": shown in listings so an operator can tell which key is which. */
export function displayPrefix(key: string): string {
  const parsed = KEY_PATTERN.exec(key);
  if (!parsed) throw new Error('not an API key');
  return `svc_${parsed[1]}_${(parsed[2] as string).slice(0, PREFIX_RANDOM_CHARS)}`;
}

/** The environment of a well-formed key string, or null when the string is not shaped like a key at all. */
export function keyEnvironment(key: string): RunEnvironment | null {
  const parsed = KEY_PATTERN.exec(key);
  return parsed ? (parsed[1] as RunEnvironment) : null;
}

/** Constant-time equality of two hex digests (different lengths are simply unequal). */
export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
