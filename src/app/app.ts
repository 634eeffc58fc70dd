// Builds the Koa application without listening: tests drive app.callback(), `printfarm serve` hands it to node:http.
import Koa from 'koa';
import Router from '@koa/router';
import type { AppDeps } from './app-deps.js';
import { errorMiddleware } from '../http/error-middleware.js';
import { authenticate } from '../http/middleware/authenticate.middleware.js';
import { failedAuthGuard } from '../http/middleware/failed-auth-guard.middleware.js';
import { rateLimit } from '../http/middleware/rate-limit.middleware.js';
import { unmatchedRoute } from '../http/middleware/unmatched-route.middleware.js';
import { mountRoutes } from '../http/mount-routes.js';
import { requestId } from '../http/request-id.js';
import { requestTiming } from '../http/middleware/request-timing.middleware.js';
import { serverDate } from '../http/server-date.js';
import { allRoutes, type AppRoute } from './routes-index.js';
import { staticWeb } from '../http/static-web.js';
import { forwardToOwner } from '../forwarding/forwarding.middleware.js';

/** `routes` defaults to every route of the API; tests may mount extra test-only routes beside them. */
export function createApp(deps: AppDeps, routes: readonly AppRoute[] = allRoutes()): Koa {
  const app = new Koa();
  // Behind a reverse proxy the client address comes from X-Forwarded-For only when the operator says so. Only its
  // last entry, the one our proxy appended, is believed: the entries before it are whatever the client sent.
  app.proxy = deps.trustProxy === true;
  app.maxIpsCount = 1;
  app.silent = true;

  // First, so it sees the final status of every request, errors included.
  app.use(requestTiming(deps.observeRequest));
  app.use(serverDate(deps.clock));
  app.use(requestId());
  app.use(errorMiddleware(deps.logger, deps.storage));
  // Inside the error middleware so 401/404/429 responses carry the rate-limit headers too; these only act on /v1.
  app.use(failedAuthGuard(deps));
  app.use(authenticate(deps));
  app.use(rateLimit(deps));
  // After authentication and limits (a caller is checked here first), before the routes: a printer of another node is acted on there.
  app.use(forwardToOwner(deps));
  app.use(staticWeb());

  // Anything nobody answered is 401 (keyless, under /v1), 405 keeping the router's Allow header, or 404.
  app.use(unmatchedRoute());

  // Case-sensitive: /V1/printers is not /v1/printers (it would skip authentication, which only guards /v1).
  const router = new Router({ sensitive: true });
  mountRoutes(router, routes, deps);
  app.use(router.routes());
  // Not throwing lets the router set Allow; the middleware above turns the bare status into the error shape.
  app.use(router.allowedMethods({ throw: false }));
  return app;
}
