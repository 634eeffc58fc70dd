// Route-level access check: a valid key for 'key' routes, a session cookie for 'session' routes, a covering scope for scoped routes (403 names the scope).
import type Koa from 'koa';
import { AppError } from '../../errors.js';
import type { HttpDeps } from '../http-deps.js';
import type { RouteAuth } from '../route.js';
import { getAuth, noCallerError } from './auth-context.js';

/** Asking a session route with no credentials at all guesses nothing, so it does not count against the address. */
class NotSignedIn extends AppError {
  override readonly failedAuthentication = false;
  constructor() {
    super(401, 'invalid_session', 'not signed in: this request carries no session cookie; sign in with POST /v1/sessions', '', {
      'WWW-Authenticate': 'Bearer',
    });
  }
}

const notASession = (): AppError =>
  new AppError(
    404,
    'resource_not_found',
    'no session: this request was not made with a session (it sent an API key in the Authorization header)',
    'sessions are for browsers: sign in with POST /v1/sessions and send the printfarm_session cookie; a key needs no session',
  );

export function authorize(ctx: Koa.Context, auth: RouteAuth, deps: HttpDeps): void {
  if (auth === 'none') return;
  const caller = getAuth(ctx);
  if (!caller) {
    const noHeader = !ctx.get('Authorization') && ctx.state.sessionRefusal === undefined;
    throw auth === 'session' && noHeader ? new NotSignedIn() : noCallerError(ctx);
  }
  if (auth === 'key') return;
  if (auth === 'session') {
    if (caller.sessionId === null) throw notASession();
    return;
  }
  if (!deps.auth.allows(caller, auth.scope)) {
    const holder = caller.sessionId !== null && caller.keyId === null ? 'this session has' : 'this key has';
    throw new AppError(403, 'insufficient_permissions', `missing scope: ${auth.scope}`, `${holder}: ${caller.scopes.join(', ')}`);
  }
}
