// Times every request and tells an observer (the metrics histogram) its method, matched route pattern, status and seconds.
import type Koa from 'koa';

export interface RequestSample {
  /** One of the methods the API knows, else `OTHER`: a label with a bounded set of values. */
  method: string;
  /** The router's pattern (`/v1/printers/:id`), never the raw path; `(other)` for what the router did not match. */
  route: string;
  status: number;
  seconds: number;
}

export type RequestObserver = (sample: RequestSample) => void;

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** What a request was answered by, as a label: ids in the URL would make one series per printer or job. */
export const UNMATCHED_ROUTE = '(other)';

/**
 * Outermost middleware: the status it reports is the final one (errors already turned into responses). The time is
 * until the response is ready to be written (a stream such as GET /v1/events counts until its headers), measured on
 * the monotonic clock, never the app's clock that tests move by hand.
 */
export function requestTiming(observe: RequestObserver | undefined): Koa.Middleware {
  if (!observe) return (_ctx, next) => next();
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      observe({
        method: KNOWN_METHODS.has(ctx.method) ? ctx.method : 'OTHER',
        route: typeof matched === 'string' ? matched : UNMATCHED_ROUTE,
        status: ctx.status,
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
      });
    }
  };
}
