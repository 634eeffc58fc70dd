// What each user role may do once signed in, as one pure table from role to scopes (the names of src/auth/scopes.ts).
import type { UserTable } from '../storage/schema.js';
import { ADMIN_SCOPE, CONCRETE_SCOPES } from './scopes.js';

type Role = UserTable['role'];

/** Every concrete `:read` scope: what a viewer holds. Derived, so a new resource's read scope reaches viewers too. */
export const READ_SCOPES: readonly string[] = CONCRETE_SCOPES.filter((s) => s.endsWith(':read'));

/**
 * owner and admin: everything. operator: runs the farm (printers, jobs, materials) and reads analytics and metrics, but manages
 * no webhooks, keys, users or settings (webhooks have no read-only scope: GET needs webhooks:write). viewer: reads.
 */
export const ROLE_SCOPES: Readonly<Record<Role, readonly string[]>> = {
  owner: [ADMIN_SCOPE],
  admin: [ADMIN_SCOPE],
  operator: ['printers:*', 'jobs:*', 'materials:*', 'analytics:read', 'metrics:read'],
  viewer: READ_SCOPES,
};

export const scopesForRole = (role: Role): string[] => [...ROLE_SCOPES[role]];
