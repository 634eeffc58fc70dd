// Checks what a sign-in presents (email and password of an active user, or a valid API key) and says who it is; every wrong credential gets one and the same 401.
import type { Clock } from '../clock.js';
import type { RunEnvironment } from '../config.js';
import { AppError, badRequest } from '../errors.js';
import type { Db } from '../storage/db.js';
import { findApiKeyById, type ApiKeyRow } from './api-keys.repository.js';
import { verifyApiKey } from './api-keys.service.js';
import { findPasswordHash } from './invitations.repository.js';
import type { PasswordCheckGate } from './password-check-gate.js';
import { verifyPassword } from './password-hash.js';
import type { SignInBody } from './sessions.schemas.js';
import { findUserByEmail, type UserRow } from './users.repository.js';

/** What a session acts as: a user signed in with a password, or an API key. */
export type SessionPrincipal = { kind: 'user'; user: UserRow } | { kind: 'key'; key: ApiKeyRow };

/**
 * The scrypt hash of a random password nobody knows. An unknown email address is checked against it, so a wrong
 * address costs the same time as a wrong password and the timing does not tell which addresses exist.
 */
const UNMATCHABLE_HASH =
  'scrypt$N=32768,r=8,p=1$3RI8xCLTihaCvC8aomKoCA$kD1cqxD8rWGJE-ob0aQredZOrMevMqLTGR2nqTUWqq3V1JBCqFu2dyFW4bBOkDup5tt3ja5_cJgJwR3Zz6h8vA';

/** One wording for a wrong address, a wrong password, an invited (not yet active) user and a bad key. A 401: counted per address. */
export const invalidCredentials = (): AppError =>
  new AppError(
    401,
    'invalid_credentials',
    'sign-in failed: the email address and password, or the API key, are not valid',
    'a user can sign in once the invitation was accepted (POST /v1/users/accept-invite)',
    { 'WWW-Authenticate': 'Bearer' },
  );

/** Exactly one form: 400 naming what is missing or extra. */
function formOf(input: SignInBody): { kind: 'password'; email: string; password: string } | { kind: 'key'; key: string } {
  const { email, password, api_key } = input;
  if (api_key !== undefined) {
    if (email !== undefined || password !== undefined) {
      throw badRequest(`send either email and password, or api_key, not both (this body also has ${email !== undefined ? 'email' : 'password'})`);
    }
    return { kind: 'key', key: api_key };
  }
  if (email === undefined && password === undefined) throw badRequest('send either email and password, or api_key');
  if (email === undefined) throw badRequest('email: required with password');
  if (password === undefined) throw badRequest('password: required with email');
  return { kind: 'password', email, password };
}

export interface SignInCheckDeps {
  db: Db;
  clock: Clock;
  env: RunEnvironment;
  passwordChecks: PasswordCheckGate;
}

export async function checkSignIn(deps: SignInCheckDeps, input: SignInBody): Promise<SessionPrincipal> {
  const form = formOf(input);
  if (form.kind === 'key') {
    let keyId: string | null;
    try {
      keyId = (await verifyApiKey(deps, form.key)).keyId;
    } catch (err) {
      // The key check's own messages (revoked at..., other environment) would say more than a sign-in form should.
      if (err instanceof AppError && err.status === 401) throw invalidCredentials();
      throw err;
    }
    const key = keyId === null ? undefined : await findApiKeyById(deps.db, keyId);
    if (!key) throw invalidCredentials();
    return { kind: 'key', key };
  }
  const user = await findUserByEmail(deps.db, form.email.trim());
  const stored = user?.status === 'active' ? await findPasswordHash(deps.db, user.id) : undefined;
  const matches = await deps.passwordChecks.run(() => verifyPassword(form.password, stored ?? UNMATCHABLE_HASH));
  if (!user || stored === undefined || !matches) throw invalidCredentials();
  return { kind: 'user', user };
}
