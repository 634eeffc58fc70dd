// HTTP Digest (RFC 7616, MD5, qop=auth) as PrusaSlicer's PrusaLink host type speaks it: the header parsed, stateless
// nonces signed by this process, and the expected response from a stored HA1. Pure: the clock and key are parameters.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** One realm for the whole farm: HA1 is computed against it when a key is made, so it can never change. */
export const DIGEST_REALM = 'printfarm';
/** How long a nonce is good for: libcurl asks again (stale=true) after, without bothering the person. */
export const NONCE_LIFETIME_MS = 5 * 60 * 1000;

export interface DigestCredentials {
  username: string;
  realm: string;
  nonce: string;
  uri: string;
  response: string;
  qop?: string;
  nc?: string;
  cnonce?: string;
  algorithm?: string;
  opaque?: string;
}

const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');

/** HA1 of RFC 7616: MD5(user:realm:password). The key is the password, its display prefix the user name. */
export const digestHa1 = (username: string, password: string): string => md5(`${username}:${DIGEST_REALM}:${password}`);

/** The params of a `Digest a="b", c=d` header value (the scheme word already removed), or a reason it cannot be read. */
export function parseDigestParams(text: string): DigestCredentials | { problem: string } {
  const params: Record<string, string> = {};
  const re = /\s*([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*(?:,|$)/gy;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(text)) !== null) {
    if (m[0] === '') break;
    params[(m[1] as string).toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] as string);
    end = re.lastIndex;
  }
  if (text.slice(end).trim() !== '') return { problem: 'the Digest credentials are not a list of name=value pairs' };
  for (const name of ['username', 'realm', 'nonce', 'uri', 'response'] as const) {
    if (!params[name]) return { problem: `the Digest credentials have no ${name}` };
  }
  const out: DigestCredentials = {
    username: params.username as string,
    realm: params.realm as string,
    nonce: params.nonce as string,
    uri: params.uri as string,
    response: (params.response as string).toLowerCase(),
  };
  for (const name of ['qop', 'nc', 'cnonce', 'algorithm', 'opaque'] as const) if (params[name] !== undefined) out[name] = params[name];
  return out;
}

/** A nonce that needs no table: the time it was made and an HMAC of that time under this process's key. */
export function makeNonce(key: Buffer, nowMs: number): string {
  const stamp = Math.floor(nowMs).toString(36);
  return `${stamp}.${createHmac('sha256', key).update(stamp).digest('base64url').slice(0, 22)}`;
}

/** 'ok', 'stale' (ours but too old: the client asks again by itself), or 'forged' (not made by this process). */
export function checkNonce(key: Buffer, nonce: string, nowMs: number): 'ok' | 'stale' | 'forged' {
  const [stamp, mac] = nonce.split('.');
  if (!stamp || !mac || !/^[0-9a-z]{1,12}$/.test(stamp)) return 'forged';
  const expected = createHmac('sha256', key).update(stamp).digest('base64url').slice(0, 22);
  if (mac.length !== expected.length || !timingSafeEqual(Buffer.from(mac), Buffer.from(expected))) return 'forged';
  const made = parseInt(stamp, 36);
  return nowMs - made > NONCE_LIFETIME_MS || made - nowMs > 60_000 ? 'stale' : 'ok';
}

/** The response the client must have sent for this request, given the stored HA1 (qop=auth, or RFC 2069 without qop). */
export function expectedResponse(ha1: string, c: DigestCredentials, method: string): string {
  const ha2 = md5(`${method}:${c.uri}`);
  return c.qop === 'auth' ? md5(`${ha1}:${c.nonce}:${c.nc ?? ''}:${c.cnonce ?? ''}:auth:${ha2}`) : md5(`${ha1}:${c.nonce}:${ha2}`);
}

/** Constant-time comparison of two hex responses. */
export function responsesMatch(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The WWW-Authenticate value that invites a Digest retry. */
export const digestChallenge = (nonce: string, stale: boolean): string =>
  `Digest realm="${DIGEST_REALM}", qop="auth", algorithm=MD5, nonce="${nonce}"${stale ? ', stale=true' : ''}`;
