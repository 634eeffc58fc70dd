// Resolves the caller of an API request into ctx.state.auth: the key in the Authorization or X-Api-Key header, Digest
// credentials on the slicers' host APIs, else the session cookie.
import { randomBytes } from 'node:crypto';
import type Koa from 'koa';
import { AppError, unauthorized } from '../../errors.js';
import type { HttpDeps } from '../http-deps.js';
import { setSessionRefusal } from './auth-context.js';
import { readCredentials } from './credentials.js';
import { checkNonce, digestChallenge, expectedResponse, makeNonce, responsesMatch, type DigestCredentials } from './digest-auth.js';
import { isAuthenticatedPath, isHostApiPath } from './rate-limit-headers.js';
import { checkCookieRequestOrigin } from './request-origin.js';
import { clearedSessionCookie, readSessionCookie } from './session-cookie.js';

const NO_SLICER_KEY =
  'no API key: give the slicer a key of this farm as its API key (X-Api-Key) or, for PrusaLink user/password, the key ' +
  'prefix as user and the key as password; the dashboard makes one under Settings, Connect a slicer';

/** The 401 of a host API, inviting a Digest retry; one that carried no credentials guessed nothing (libcurl always starts so). */
class HostApiChallenge extends AppError {
  override readonly failedAuthentication: boolean | undefined;
  constructor(cause: AppError, nonce: string, stale: boolean, guessed: boolean) {
    const message = guessed || stale ? cause.message : NO_SLICER_KEY;
    super(401, cause.code, message, cause.details, { 'WWW-Authenticate': digestChallenge(nonce, stale) });
    this.failedAuthentication = guessed ? undefined : false;
  }
}

/**
 * No usable credentials leaves ctx.state.auth unset; authorize() (or the unmatched-route middleware) then answers 401
 * saying what was wrong with the header. Presented but invalid keys are refused here. The session cookie is used only
 * when there is no Authorization header at all: a header is an explicit choice and wins.
 */
export function authenticate(deps: HttpDeps): Koa.Middleware {
  // Signs this process's Digest nonces; another node (or a restart) answers a nonce it did not make with stale=true.
  const nonceKey = randomBytes(32);
  return async (ctx, next) => {
    if (!isAuthenticatedPath(ctx.path)) return next();
    const credentials = readCredentials(ctx.get('Authorization') || undefined, ctx.headers['x-api-key'] as string | undefined);
    const hostApi = isHostApiPath(ctx.path);
    let stale = false;
    try {
      if (credentials.kind === 'key') {
        const auth = await deps.auth.verifyKey(credentials.key);
        ctx.state.auth = auth;
        if (auth.keyId !== null) await deps.auth.recordUse(auth.keyId, deps.clock.now());
      } else if (credentials.kind === 'digest') {
        if (!hostApi) throw unauthorized('Digest credentials are taken only on the slicer upload APIs; send "Authorization: Bearer <key>"');
        const nonce = checkNonce(nonceKey, credentials.digest.nonce, deps.clock.now());
        stale = nonce === 'stale';
        if (nonce !== 'ok') throw unauthorized(stale ? 'the Digest nonce expired; ask again' : 'the Digest nonce was not made by this server');
        const auth = await verifyDigest(deps, credentials.digest, ctx);
        ctx.state.auth = auth;
        if (auth.keyId !== null) await deps.auth.recordUse(auth.keyId, deps.clock.now());
      } else if (credentials.kind === 'none') {
        const token = readSessionCookie(ctx.get('Cookie') || undefined);
        if (token !== null) await useSession(ctx, deps, token);
      }
      await next();
    } catch (err) {
      if (!hostApi || !(err instanceof AppError) || err.status !== 401) throw err;
      throw new HostApiChallenge(err, makeNonce(nonceKey, deps.clock.now()), stale, credentials.kind !== 'none' && !stale);
    }
  };
}

async function verifyDigest(deps: HttpDeps, digest: DigestCredentials, ctx: Koa.Context) {
  // The credentials must be for this very request: a response captured for another path does not carry over.
  if (digest.uri !== ctx.originalUrl && digest.uri !== ctx.path) throw unauthorized('the Digest uri is not the requested path');
  if (digest.algorithm !== undefined && digest.algorithm.toUpperCase() !== 'MD5') {
    throw unauthorized(`Digest algorithm ${digest.algorithm.slice(0, 20)} is not supported: use MD5`);
  }
  return deps.auth.verifyDigest(digest.username, (ha1) => responsesMatch(expectedResponse(ha1, digest, ctx.method), digest.response));
}

async function useSession(ctx: Koa.Context, deps: HttpDeps, token: string): Promise<void> {
  let auth;
  try {
    auth = await deps.auth.verifySession(token);
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 401) throw err;
    // The browser drops the dead cookie; routes that need a caller answer with the reason (public ones just work).
    ctx.set('Set-Cookie', clearedSessionCookie(ctx.secure));
    setSessionRefusal(ctx, err);
    return;
  }
  // Before anything runs as this caller: the cookie rides along on requests other pages trigger, the Origin does not lie.
  checkCookieRequestOrigin(ctx);
  ctx.state.auth = auth;
  const now = deps.clock.now();
  if (auth.sessionId !== null) await deps.auth.recordSessionUse(auth.sessionId, now);
  if (auth.keyId !== null) await deps.auth.recordUse(auth.keyId, now);
}
