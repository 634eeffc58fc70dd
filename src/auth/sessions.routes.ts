// /v1/sessions: browser sign-in (email and password, or an API key) setting the HttpOnly session cookie, the current session, sign-out.
import { getAuth, requireAuth } from '../http/middleware/auth-context.js';
import { checkSignInOrigin } from '../http/middleware/request-origin.js';
import { clearedSessionCookie, SESSION_COOKIE, sessionCookie } from '../http/middleware/session-cookie.js';
import { routeDefiner } from '../http/route.js';
import { errorDocs } from '../http/route-docs.js';
import { SessionResponse, SignInBody } from './sessions.schemas.js';
import { currentSession, signIn, signOut, toSessionRecord } from './sessions.service.js';
import type { AuthRouteDeps } from './auth-route-deps.js';
import { withDocs } from '../http/with-docs.js';
import { sessionDocs } from './sessions.docs.js';

const defineRoute = routeDefiner<AuthRouteDeps>();

const TAG = 'Sessions';
const notASession = { description: 'resource_not_found: the request used an API key in the Authorization header, not the session cookie' };

export const sessionRoutes = withDocs(sessionDocs, [
  defineRoute<SignInBody>({
    method: 'POST',
    path: '/v1/sessions',
    summary: 'Sign in (browser): email and password, or an API key; sets the session cookie',
    description:
      `Needs no API key. Sets \`${SESSION_COOKIE}\` (HttpOnly, SameSite=Strict, Path=/, Max-Age the session lifetime; Secure over https). ` +
      'A password session has the scopes of the user\'s role; a session made from an API key has the key\'s scopes and ends when ' +
      'the key is revoked or expires. A wrong email, password or key is 401 invalid_credentials and counts as a failed ' +
      'authentication of the client address (20 per 15 minutes, then 429). From another site\'s page (Origin or ' +
      'Sec-Fetch-Site) it is 403 csrf_rejected.',
    tag: TAG,
    auth: 'none',
    body: SignInBody,
    responses: {
      201: { description: '`session`: the new session (the token is only in the Set-Cookie header)', schema: SessionResponse },
      ...errorDocs(400, 403),
    },
    async handle(ctx, { body }, deps) {
      checkSignInOrigin(ctx);
      const { token, live } = await signIn(deps, body);
      // A browser that signs in again drops the cookie it had: that session can never be used again, so end it now.
      const previous = getAuth(ctx)?.sessionId;
      if (previous) await signOut(deps, previous);
      ctx.status = 201;
      ctx.set('Set-Cookie', sessionCookie(token, live.policy.lifetimeMs / 1000, ctx.secure));
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { session: toSessionRecord(live) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/sessions/current',
    summary: 'The session of this request (the signed-in user or key, scopes and when it ends)',
    description:
      'Only with the session cookie: without any credentials 401 invalid_session (not counted as a failed authentication, ' +
      'so a signed-out dashboard may ask freely); with an API key in the Authorization header 404.',
    tag: TAG,
    auth: 'session',
    responses: { 200: { description: '`session`', schema: SessionResponse }, 404: notASession, ...errorDocs() },
    async handle(ctx, _input, deps) {
      const caller = requireAuth(ctx);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { session: toSessionRecord(await currentSession(deps, caller.sessionId as string)) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/sessions/current',
    summary: 'Sign out: ends the session of this request and clears the cookie',
    description: 'Like every request that uses the cookie to change something, it must come from this origin (else 403 csrf_rejected).',
    tag: TAG,
    auth: 'session',
    responses: { 204: { description: 'Signed out; `Set-Cookie` clears the cookie' }, 404: notASession, ...errorDocs(403) },
    async handle(ctx, _input, deps) {
      const caller = requireAuth(ctx);
      await signOut(deps, caller.sessionId as string);
      ctx.set('Set-Cookie', clearedSessionCookie(ctx.secure));
      ctx.status = 204;
    },
  }),
]);
