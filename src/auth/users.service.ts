// Users of the organization: reading and inviting (the invite token is returned once and stored only as a hash).
import { createHash } from 'node:crypto';
import { isoTime, type Clock } from '../clock.js';
import { AppError, notFound } from '../errors.js';
import { newId, randomBase62 } from '../ids.js';
import type { Db } from '../storage/db.js';
import type { UserTable } from '../storage/schema.js';
import { runListQuery, type ListPage, type ListQuery } from '../storage/list-page.js';
import { findUserByEmail, findUserById, insertUser, selectUsers, type UserRow } from './users.repository.js';
import { isUniqueViolation } from '../storage/unique-violation.js';

export type Role = UserTable['role'];
export const ROLES: readonly Role[] = ['owner', 'admin', 'operator', 'viewer'];

export interface UserRecord {
  id: string;
  email: string;
  name: string;
  role: Role;
  status: 'active' | 'invited';
  invited_by: string | null;
  created_at: string;
  updated_at: string;
}

export const USER_FIELDS = ['id', 'email', 'name', 'role', 'status', 'invited_by', 'created_at', 'updated_at'] as const;

export function toUserRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.status,
    invited_by: row.invited_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function getUser(db: Db, id: string): Promise<UserRow> {
  const row = await findUserById(db, id);
  if (!row) throw notFound(`user ${id}`);
  return row;
}

export async function listUsers(db: Db, q: ListQuery): Promise<ListPage<Partial<UserRecord>>> {
  return runListQuery(selectUsers(db), q, (row) => ({ ...toUserRecord(row) }));
}

/** How an invite token is stored (and looked up when it is accepted). */
export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

export async function inviteUser(
  deps: { db: Db; clock: Clock },
  invitedBy: string | null,
  input: { email: string; name: string; role: Role },
): Promise<{ row: UserRow; inviteToken: string }> {
  const email = input.email.trim();
  const name = input.name.trim();
  if (!name) throw new AppError(400, 'invalid_request', 'name: must not be blank');
  const existing = await findUserByEmail(deps.db, email);
  // A conflict with existing state, not a malformed request: 409 with the generic request code.
  if (existing) throw new AppError(409, 'invalid_request', `a user with email ${email} already exists (${existing.id})`);
  const inviteToken = `inv_${randomBase62(40)}`;
  const now = isoTime(deps.clock.now());
  const row: UserRow = {
    id: newId('usr'),
    email,
    name,
    role: input.role,
    status: 'invited',
    invite_token_hash: hashToken(inviteToken),
    invited_by: invitedBy,
    created_at: now,
    updated_at: now,
  };
  try {
    await insertUser(deps.db, row);
  } catch (err) {
    // Two invites racing for one address: the UNIQUE index decides, the loser gets the same 409.
    if (isUniqueViolation(err, { index: 'users_email_nocase', sqliteColumns: 'users.email' })) {
      throw new AppError(409, 'invalid_request', `a user with email ${email} already exists`);
    }
    throw err;
  }
  return { row, inviteToken };
}
