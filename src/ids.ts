// Public identifiers: a kind prefix and random base62, e.g. prt_4fQ9..., so an id says what it names.
import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix = 'prt' | 'job' | 'mat' | 'key' | 'usr' | 'wh' | 'evt' | 'req' | 'org' | 'inv' | 'bat' | 'fil' | 'file' | 'ses' | 'nod' | 'cam' | 'snp';

export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(20)}`;
