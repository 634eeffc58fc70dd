// HTTP Digest authentication (RFC 7616, and RFC 2069/2617 without qop): challenge parsing and the response maths.
// Pure: the caller supplies the client nonce and the nonce count, so tests can check the RFC examples exactly.
import { createHash } from 'node:crypto';

export type DigestAlgorithm = 'MD5' | 'MD5-sess' | 'SHA-256' | 'SHA-256-sess';

export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque?: string;
  algorithm: DigestAlgorithm;
  /** 'auth' when the server offers it; null for the legacy form without qop (RFC 2069). */
  qop: 'auth' | null;
  /** The server says the nonce expired but the credentials were right: retry with the new nonce. */
  stale: boolean;
}

export interface DigestInput {
  username: string;
  password: string;
  method: string;
  /** The request target as sent: path and query. */
  uri: string;
  /** Client nonce; used only with qop. */
  cnonce: string;
  /** How many requests used this nonce, counting this one (1-based). */
  nc: number;
}

const HASHES: Record<DigestAlgorithm, { hash: 'md5' | 'sha256'; sess: boolean }> = {
  MD5: { hash: 'md5', sess: false },
  'MD5-sess': { hash: 'md5', sess: true },
  'SHA-256': { hash: 'sha256', sess: false },
  'SHA-256-sess': { hash: 'sha256', sess: true },
};

/** `name=value` and `name="quoted \" value"` pairs of an auth-param list. */
function parseParams(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    out.set(m[1]!.toLowerCase(), m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!);
  }
  return out;
}

/**
 * The Digest challenge of a WWW-Authenticate header, or null when the header offers no Digest scheme we can answer
 * (an unknown algorithm, or qop without `auth`). Several headers may be given; the first usable one wins, SHA-256
 * first when the server offers both.
 */
export function parseDigestChallenge(headers: string | string[] | undefined): DigestChallenge | null {
  const list = headers === undefined ? [] : Array.isArray(headers) ? headers : [headers];
  const found: DigestChallenge[] = [];
  for (const header of list) {
    // A header may carry several challenges; each Digest one starts at its scheme name.
    for (const part of header.split(/(?=\bDigest\s)/i)) {
      const m = /^\s*Digest\s+(.*)$/is.exec(part);
      if (!m) continue;
      const p = parseParams(m[1]!);
      const realm = p.get('realm');
      const nonce = p.get('nonce');
      if (realm === undefined || nonce === undefined) continue;
      const algorithm = (p.get('algorithm') ?? 'MD5').toUpperCase().replace('-SESS', '-sess') as DigestAlgorithm;
      if (!(algorithm in HASHES)) continue;
      const qops = p.get('qop');
      let qop: 'auth' | null = null;
      if (qops !== undefined) {
        if (!qops.split(',').some((q) => q.trim().toLowerCase() === 'auth')) continue;
        qop = 'auth';
      }
      const opaque = p.get('opaque');
      found.push({
        realm,
        nonce,
        ...(opaque !== undefined ? { opaque } : {}),
        algorithm,
        qop,
        stale: (p.get('stale') ?? '').toLowerCase() === 'true',
      });
    }
  }
  return found.find((c) => c.algorithm.startsWith('SHA-256')) ?? found[0] ?? null;
}

const hex = (hash: 'md5' | 'sha256', text: string): string => createHash(hash).update(text, 'utf8').digest('hex');

/** The nonce count as sent: 8 hex digits. */
export const formatNc = (nc: number): string => nc.toString(16).padStart(8, '0');

/** The `response` value: H(HA1:nonce[:nc:cnonce:qop]:HA2). */
export function digestResponse(c: DigestChallenge, input: DigestInput): string {
  const { hash, sess } = HASHES[c.algorithm];
  let ha1 = hex(hash, `${input.username}:${c.realm}:${input.password}`);
  if (sess) ha1 = hex(hash, `${ha1}:${c.nonce}:${input.cnonce}`);
  const ha2 = hex(hash, `${input.method}:${input.uri}`);
  const middle = c.qop === null ? c.nonce : `${c.nonce}:${formatNc(input.nc)}:${input.cnonce}:${c.qop}`;
  return hex(hash, `${ha1}:${middle}:${ha2}`);
}

const quote = (s: string): string => `"${s.replace(/["\\]/g, '\\$&')}"`;

/** The Authorization header value answering `c`. */
export function digestAuthorization(c: DigestChallenge, input: DigestInput): string {
  const parts = [
    `username=${quote(input.username)}`,
    `realm=${quote(c.realm)}`,
    `nonce=${quote(c.nonce)}`,
    `uri=${quote(input.uri)}`,
    `algorithm=${c.algorithm}`,
    `response=${quote(digestResponse(c, input))}`,
  ];
  if (c.qop !== null) parts.push(`qop=${c.qop}`, `nc=${formatNc(input.nc)}`, `cnonce=${quote(input.cnonce)}`);
  if (c.opaque !== undefined) parts.push(`opaque=${quote(c.opaque)}`);
  return `Digest ${parts.join(', ')}`;
}

/** The fields of a client's `Authorization: Digest ...` header (the server side: the stand-in checks them). */
export function parseDigestAuthorization(header: string | undefined): Map<string, string> | null {
  if (header === undefined) return null;
  const m = /^\s*Digest\s+(.*)$/is.exec(header);
  return m ? parseParams(m[1]!) : null;
}
