// Idempotency-Key handling for creating POSTs (owned by the idempotency work).
import type Koa from 'koa';
import type { AppDeps } from './app-deps.js';

export async function withIdempotency(_ctx: Koa.Context, _deps: AppDeps, run: () => Promise<void>): Promise<void> {
  await run();
}
