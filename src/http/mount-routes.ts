// Mounts route definitions on a router: auth, content type, body and query validation, idempotency, then the handler.
import type Koa from 'koa';
import type Router from '@koa/router';
import { AppError, badRequest, quoteInput } from '../errors.js';
import { authorize } from './middleware/authorize.js';
import type { HttpDeps } from './http-deps.js';
import { idempotentRunner } from './idempotency.js';
import { jsonBodyReader } from './json-body.js';
import { parseListQuery } from './list-query.js';
import type { RouteDef } from './route.js';
import { validateOrThrow } from './validation.js';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/** A body-taking route accepts JSON (and multipart where declared); anything else is 415 before validation. */
function checkContentType(ctx: Koa.Context, route: Pick<RouteDef, 'method' | 'body' | 'multipart'>): void {
  if (!METHODS_WITH_BODY.has(route.method) || !route.body) return;
  if (ctx.request.length === 0 || (!ctx.request.length && !ctx.get('Transfer-Encoding') && !ctx.get('Content-Type'))) return;
  const accepted = route.multipart ? ['application/json', 'multipart/form-data'] : ['application/json'];
  if (!ctx.is(accepted)) {
    const sent = ctx.get('Content-Type');
    throw new AppError(415, 'invalid_request', `unsupported content type ${sent ? quoteInput(sent) : 'none'}: send ${accepted.join(' or ')}`);
  }
}

/**
 * Path parameters as given, refusing a NUL character: no id holds one, and PostgreSQL text cannot carry it (the look-up
 * would fail instead of finding nothing), so both engines answer it with the same clear 400.
 */
function checkedParams(params: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(params)) {
    if (value.includes('\u0000')) throw badRequest(`path parameter ${name}: contains a NUL character (U+0000)`);
  }
  return { ...params };
}

export function mountRoutes<D extends HttpDeps>(router: Router, routes: readonly RouteDef<any, any, D>[], deps: D): void {
  const readJsonBody = jsonBodyReader();
  const withIdempotency = idempotentRunner(deps);
  for (const route of routes) {
    const handle = route.handle;
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    router[method](route.path, async (ctx: Koa.Context) => {
      authorize(ctx, route.auth, deps);
      checkContentType(ctx, route);
      // A multipart body is streamed by the handler itself (files never pass through memory): nothing to read here.
      const streamed = route.multipart === true && ctx.is('multipart/form-data') === 'multipart/form-data';
      // Read only now: a request that is refused (401, 403, 415) or goes nowhere (404) never has its body parsed.
      const rawBody = route.body && !streamed ? await readJsonBody(ctx) : undefined;
      const body = route.body && !streamed ? validateOrThrow(route.body, rawBody ?? {}, 'body') : undefined;
      const query = route.list
        ? parseListQuery(ctx.query, route.list)
        : route.query
          ? validateOrThrow(route.query, { ...ctx.query }, 'query')
          : ctx.query;
      const input = { body, query, params: checkedParams(ctx.params as Record<string, string>) };
      const run = async (): Promise<void> => {
        await handle(ctx, input, deps);
      };
      if (route.idempotent && route.method === 'POST') await withIdempotency(ctx, run);
      else await run();
    });
  }
}
