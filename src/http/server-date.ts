// Stamps every response's Date header from the app's clock, so a client (the dashboard) can follow the server's time.
import type Koa from 'koa';
import type { Clock } from '../clock.js';

export function serverDate(clock: Clock): Koa.Middleware {
  return async (ctx, next) => {
    // Set before the handler runs, so error answers and long-lived streams carry it too. Node sends its own Date
    // header only when none is set, and that one would read the machine's clock instead of the injected one.
    ctx.set('Date', new Date(clock.now()).toUTCString());
    await next();
  };
}
