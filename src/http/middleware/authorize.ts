// Route-level access check: a valid key for 'key' routes, a covering scope for scoped routes (403 names the scope).
import type Koa from 'koa';
import { AppError } from '../../errors.js';
import type { AppDeps } from '../app-deps.js';
import type { RouteAuth } from '../route.js';
import { getAuth } from './auth-context.js';
import { missingCredentials } from './credentials.js';

export function authorize(ctx: Koa.Context, auth: RouteAuth, deps: AppDeps): void {
  if (auth === 'none') return;
  const caller = getAuth(ctx);
  if (!caller) throw missingCredentials(ctx.get('Authorization'));
  if (auth === 'key') return;
  if (!deps.auth.allows(caller, auth.scope)) {
    throw new AppError(403, 'insufficient_permissions', `missing scope: ${auth.scope}`, `this key has: ${caller.scopes.join(', ')}`);
  }
}
