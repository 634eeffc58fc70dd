// Builds the Koa application without listening: tests drive app.callback(), `printfarm serve` hands it to node:http.
import Koa from 'koa';
import Router from '@koa/router';
import { authenticate } from './auth/authenticate.middleware.js';
import { failedAuthGuard } from './auth/failed-auth-guard.middleware.js';
import { rateLimit } from './auth/rate-limit.middleware.js';
import { AppError } from './errors.js';
import type { AppDeps } from './http/app-deps.js';
import { errorMiddleware } from './http/error-middleware.js';
import { mountRoutes } from './http/mount-routes.js';
import { requestId } from './http/request-id.js';
import type { RouteDef } from './http/route.js';
import { allRoutes } from './http/routes-index.js';
import { staticWeb } from './http/static-web.js';

/** `routes` defaults to every route of the API; tests may mount extra test-only routes beside them. */
export function createApp(deps: AppDeps, routes: readonly RouteDef<any, any>[] = allRoutes()): Koa {
  const app = new Koa();
  // Behind a reverse proxy the client address comes from X-Forwarded-For only when the operator says so.
  app.proxy = process.env.PRINTFARM_TRUST_PROXY === '1';
  app.silent = true;

  app.use(requestId());
  app.use(errorMiddleware(deps.logger));
  // Inside the error middleware so 401/404/429 responses carry the rate-limit headers too; these only act on /v1.
  app.use(failedAuthGuard(deps));
  app.use(authenticate(deps));
  app.use(rateLimit(deps));
  app.use(staticWeb());

  // Anything nobody answered is an unknown route, and allowedMethods' bare 405/501 becomes shape B keeping its Allow header.
  app.use(async (ctx, next) => {
    await next();
    if (ctx.body != null) return;
    const allow = ctx.response.get('Allow');
    // A method the router does not know (501) on a path nothing serves is just an unknown route.
    if ((ctx.status === 405 || ctx.status === 501) && allow) {
      throw new AppError(405, 'invalid_request', `method ${ctx.method} not allowed on ${ctx.path}; allowed: ${allow}`, '', {
        Allow: allow,
      });
    }
    if (ctx.status === 404 || ctx.status === 405 || ctx.status === 501) {
      ctx.remove('Allow');
      throw new AppError(404, 'resource_not_found', `no route for ${ctx.method} ${ctx.path}`);
    }
  });

  const router = new Router();
  mountRoutes(router, routes, deps);
  app.use(router.routes());
  // Not throwing lets the router set Allow; the middleware above turns the bare status into the error shape.
  app.use(router.allowedMethods({ throw: false }));
  return app;
}
