// Gives every request an id (X-Request-Id on every response, in logs and in 500 bodies), reusing a sane client-sent one.
import type Koa from 'koa';
import { newId } from '../ids.js';

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(): Koa.Middleware {
  return async (ctx, next) => {
    const sent = ctx.get('X-Request-Id');
    const id = CLIENT_ID.test(sent) ? sent : newId('req');
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    await next();
  };
}
