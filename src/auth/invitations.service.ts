// Accepting an invitation: the single-use token (valid 7 days from the invite) becomes an active user with a password.
import { isoTime, type Clock } from '../clock.js';
import { AppError, badRequest } from '../errors.js';
import type { Db } from '../storage/db.js';
import { activateWithPassword, findUserByInviteTokenHash } from './invitations.repository.js';
import { hashPassword } from './password-hash.js';
import { passwordProblem } from './password-policy.js';
import { getUser, hashToken } from './users.service.js';
import type { UserRow } from './users.repository.js';

export const INVITE_VALID_MS = 7 * 24 * 60 * 60 * 1000;

/** A token that cannot be accepted; the route counts these like failed authentications (they are guesses too). */
export class InviteTokenError extends AppError {
  // The same budget as wrong API keys, so guessing tokens is no cheaper than guessing keys.
  override readonly failedAuthentication = true;
  constructor(message: string) {
    super(400, 'invalid_request', message);
  }
}

const unknownOrUsed = (): InviteTokenError =>
  new InviteTokenError('token: this invitation is unknown or was already used; ask an admin to invite you again');

export async function acceptInvite(deps: { db: Db; clock: Clock }, input: { token: string; password: string }): Promise<UserRow> {
  const tokenHash = hashToken(input.token);
  const user = await findUserByInviteTokenHash(deps.db, tokenHash);
  if (!user || user.status !== 'invited') throw unknownOrUsed();
  // An invite is the creation of the invited user, so its age is the user's age.
  const expiresAt = Date.parse(user.created_at) + INVITE_VALID_MS;
  const now = deps.clock.now();
  if (now >= expiresAt) {
    throw new InviteTokenError(`token: this invitation expired at ${isoTime(expiresAt)}; ask an admin to invite you again`);
  }
  const problem = passwordProblem(input.password, user.email);
  if (problem) throw badRequest(problem);
  const passwordHash = await hashPassword(input.password);
  const activated = await activateWithPassword(deps.db, { userId: user.id, tokenHash, passwordHash, now: isoTime(now) });
  // Another request with the same token won while this one was hashing.
  if (!activated) throw unknownOrUsed();
  return getUser(deps.db, user.id);
}
