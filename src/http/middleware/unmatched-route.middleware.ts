// What nobody answered: under /v1 a keyless request is 401 first; then 405 (with Allow) for a known path, else 404.
import type Koa from 'koa';
import { AppError, quoteInput } from '../../errors.js';
import { getAuth, noCallerError } from './auth-context.js';
import { isApiPath } from './rate-limit-headers.js';

/** Mount outside the router: it turns the router's bare 404/405/501 into shape B errors. */
export function unmatchedRoute(): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.body != null || (ctx.status !== 404 && ctx.status !== 405 && ctx.status !== 501)) return;
    // Integrators expect a missing key to be named on any /v1 path, and a keyless caller learns nothing about routes.
    if (isApiPath(ctx.path) && !getAuth(ctx)) {
      ctx.remove('Allow');
      throw noCallerError(ctx);
    }
    const allow = ctx.response.get('Allow');
    // A method the router does not know (501) on a path nothing serves is just an unknown route.
    if ((ctx.status === 405 || ctx.status === 501) && allow) {
      throw new AppError(405, 'invalid_request', `method ${quoteInput(ctx.method)} not allowed on ${quoteInput(ctx.path)}; allowed: ${allow}`, '', {
        Allow: allow,
      });
    }
    ctx.remove('Allow');
    const lower = ctx.path.toLowerCase();
    const hint = lower !== ctx.path && isApiPath(lower) ? `paths are case-sensitive: did you mean ${quoteInput(lower)}?` : '';
    throw new AppError(404, 'resource_not_found', `no route for ${ctx.method} ${quoteInput(ctx.path)}`, hint);
  };
}
