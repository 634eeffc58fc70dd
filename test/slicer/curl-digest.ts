// The Authorization value libcurl sends after a `WWW-Authenticate: Digest …` challenge (RFC 7616 as curl does it: MD5 or
// SHA-256, qop=auth, nc=00000001, opaque and algorithm echoed only when the challenge carried them).
import { createHash, randomBytes } from 'node:crypto';

export interface DigestChallenge {
  realm: string;
  nonce: string;
  qop?: string;
  opaque?: string;
  algorithm?: string;
}

/** The Digest challenge in a WWW-Authenticate value, or undefined when there is none. */
export function parseDigestChallenge(value: string | undefined): DigestChallenge | undefined {
  if (!value || !/^\s*digest\s/i.test(value)) return undefined;
  const params: Record<string, string> = {};
  for (const m of value.replace(/^\s*digest\s+/i, '').matchAll(/([a-zA-Z]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    params[(m[1] ?? '').toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
  }
  if (params.realm === undefined || params.nonce === undefined) return undefined;
  return { realm: params.realm, nonce: params.nonce, qop: params.qop, opaque: params.opaque, algorithm: params.algorithm };
}

export function digestAuthorization(
  ch: DigestChallenge,
  cred: { user: string; password: string },
  method: string,
  uri: string,
  cnonce = randomBytes(16).toString('hex'),
): string {
  const algo = (ch.algorithm ?? 'MD5').toUpperCase();
  const hashName = algo.startsWith('SHA-256') ? 'sha256' : 'md5';
  const h = (s: string) => createHash(hashName).update(s, 'utf8').digest('hex');
  const ha1 = h(`${cred.user}:${ch.realm}:${cred.password}`);
  const ha2 = h(`${method}:${uri}`);
  // curl picks "auth" when the server offers it among other qop values.
  const qop = ch.qop?.split(',').map((q) => q.trim()).includes('auth') ? 'auth' : undefined;
  const nc = '00000001';
  const response = qop ? h(`${ha1}:${ch.nonce}:${nc}:${cnonce}:${qop}:${ha2}`) : h(`${ha1}:${ch.nonce}:${ha2}`);
  let v = `Digest username="${cred.user}", realm="${ch.realm}", nonce="${ch.nonce}", uri="${uri}", `;
  v += qop ? `cnonce="${cnonce}", nc=${nc}, qop=${qop}, response="${response}"` : `response="${response}"`;
  if (ch.opaque !== undefined) v += `, opaque="${ch.opaque}"`;
  if (ch.algorithm !== undefined) v += `, algorithm=${ch.algorithm}`;
  return v;
}
