// Route-level access check (owned by the auth work): a valid key for 'key' routes, a covering scope for scoped routes.
import type Koa from 'koa';
import { AppError } from '../errors.js';
import type { AppDeps } from '../http/app-deps.js';
import type { RouteAuth } from '../http/route.js';

export async function authorize(_ctx: Koa.Context, auth: RouteAuth, _deps: AppDeps): Promise<void> {
  if (auth === 'none') return;
  throw new AppError(401, 'invalid_api_key', 'authentication is not wired yet', '', { 'WWW-Authenticate': 'Bearer' });
}
