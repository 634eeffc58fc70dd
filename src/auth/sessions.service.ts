// Browser sessions: signing in (a random cookie token, stored only as a hash), checking a session on every use, describing and ending it.
import { createHash, randomBytes } from 'node:crypto';
import { isoTime, type Clock } from '../clock.js';
import type { RunEnvironment } from '../config.js';
import { AppError } from '../errors.js';
import type { AuthContext } from '../http/middleware/auth-context.js';
import { newId } from '../ids.js';
import type { Db } from '../storage/db.js';
import { findApiKeyById } from './api-keys.repository.js';
import { apiKeyStatus } from './api-key-record.js';
import { findOrganization } from './organization.repository.js';
import { scopesForRole } from './role-scopes.js';
import { endedBy, sessionDeadlines, sessionPolicy, type SessionPolicy } from './session-expiry.js';
import type { SessionRecord, SignInBody } from './sessions.schemas.js';
import {
  deleteEndedSessions,
  deleteSession,
  findSessionById,
  findSessionByTokenHash,
  insertSession,
  trimSessions,
  type SessionRow,
} from './sessions.repository.js';
import { checkSignIn, type SessionPrincipal, type SignInCheckDeps } from './sign-in-credentials.js';
import { findUserById } from './users.repository.js';

export interface SessionServiceDeps {
  db: Db;
  clock: Clock;
  env: RunEnvironment;
}

/** 32 random bytes, base64url: 43 characters, 256 bits. */
const TOKEN_BYTES = 32;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** Sessions one user or one key may hold at once; signing in past it ends the oldest (bounds the table). */
export const MAX_SESSIONS_PER_OWNER = 50;

/** A session found live: its row, what it acts as, the settings it was checked against and its last use. */
export interface LiveSession {
  row: SessionRow;
  principal: SessionPrincipal;
  policy: SessionPolicy;
  lastSeenMs: number;
}

/** Hex SHA-256: right for a 256-bit random token (no salt or slow hash needed, and the lookup stays one index probe). */
const hashSessionToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Every refusal of a cookie says to sign in again: the dashboard shows its sign-in form on this code. */
const sessionRefused = (why: string): AppError =>
  new AppError(401, 'invalid_session', `${why}; sign in again`, 'POST /v1/sessions signs in', { 'WWW-Authenticate': 'Bearer' });

const unknownSession = (): AppError => sessionRefused('not signed in: this session is unknown or was signed out');

export async function signIn(deps: SignInCheckDeps, input: SignInBody): Promise<{ token: string; live: LiveSession }> {
  const principal = await checkSignIn(deps, input);
  const now = deps.clock.now();
  const policy = sessionPolicy(await findOrganization(deps.db));
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  const row: SessionRow = {
    id: newId('ses'),
    token_hash: hashSessionToken(token),
    user_id: principal.kind === 'user' ? principal.user.id : null,
    api_key_id: principal.kind === 'key' ? principal.key.id : null,
    created_at: isoTime(now),
    last_seen_at: isoTime(now),
  };
  const owner = principal.kind === 'user' ? { column: 'user_id' as const, id: principal.user.id } : { column: 'api_key_id' as const, id: principal.key.id };
  await deps.db.transaction().execute(async (trx) => {
    // Ended sessions go at sign-in time: no timer, and the table never holds more than the live ones plus a few.
    await deleteEndedSessions(trx, { createdBefore: isoTime(now - policy.lifetimeMs), lastSeenBefore: isoTime(now - policy.idleMs) });
    await insertSession(trx, row);
    await trimSessions(trx, owner, MAX_SESSIONS_PER_OWNER);
  });
  return { token, live: { row, principal, policy, lastSeenMs: now } };
}

/** What the session acts as now; a reason (for the 401) when its user or key can no longer act. */
async function principalOf(deps: SessionServiceDeps, row: SessionRow, nowMs: number): Promise<SessionPrincipal | string> {
  if (row.user_id !== null) {
    const user = await findUserById(deps.db, row.user_id);
    return user?.status === 'active' ? { kind: 'user', user } : 'your user account is no longer active';
  }
  const key = row.api_key_id === null ? undefined : await findApiKeyById(deps.db, row.api_key_id);
  if (!key || key.env !== deps.env) return 'the API key this session was signed in with no longer exists';
  const status = apiKeyStatus(key, nowMs);
  if (status === 'revoked') return `the API key this session was signed in with was revoked at ${key.revoked_at}`;
  if (status === 'expired') return `the API key this session was signed in with expired at ${key.expires_at}`;
  return { kind: 'key', key };
}

/**
 * Checks a stored session against the organization's settings as they are now and against its user or key; a session
 * that has ended is deleted and refused. `heldBackMs`: a use newer than the stored last_seen_at (coalesced writes).
 */
export async function checkSession(deps: SessionServiceDeps, row: SessionRow, heldBackMs?: number): Promise<LiveSession> {
  const now = deps.clock.now();
  const policy = sessionPolicy(await findOrganization(deps.db));
  const lastSeenMs = Math.max(Date.parse(row.last_seen_at), heldBackMs ?? 0);
  const deadlines = sessionDeadlines(Date.parse(row.created_at), lastSeenMs, policy);
  const ended = endedBy(deadlines, now);
  if (ended !== null) {
    await deleteSession(deps.db, row.id);
    throw sessionRefused(
      ended === 'lifetime'
        ? `your session expired at ${isoTime(deadlines.expiresAtMs)} (sessions last ${policy.lifetimeMs / 3_600_000} hours from sign-in)`
        : `your session ended at ${isoTime(deadlines.idleExpiresAtMs)} after ${policy.idleMs / 60_000} minutes without use`,
    );
  }
  const principal = await principalOf(deps, row, now);
  if (typeof principal === 'string') {
    await deleteSession(deps.db, row.id);
    throw sessionRefused(`your session has ended: ${principal}`);
  }
  return { row, principal, policy, lastSeenMs };
}

/** The caller behind a cookie token, or a 401 invalid_session saying why not. */
export async function verifySessionToken(
  deps: SessionServiceDeps,
  token: string,
  heldBackMs: (sessionId: string) => number | undefined,
): Promise<AuthContext> {
  // Not a token this server could have minted: no lookup needed to refuse it.
  if (!TOKEN_PATTERN.test(token)) throw unknownSession();
  const row = await findSessionByTokenHash(deps.db, hashSessionToken(token));
  if (!row) throw unknownSession();
  return sessionAuthContext(await checkSession(deps, row, heldBackMs(row.id)), deps.env);
}

/** For a long-lived stream that authenticated earlier: whether its session still lives (not signed out, ended or its key revoked). */
export async function sessionStillValid(deps: SessionServiceDeps, sessionId: string, heldBackMs?: number): Promise<boolean> {
  const row = await findSessionById(deps.db, sessionId);
  if (!row) return false;
  try {
    await checkSession(deps, row, heldBackMs);
    return true;
  } catch (err) {
    if (err instanceof AppError) return false;
    throw err;
  }
}

function scopesOf(principal: SessionPrincipal): string[] {
  return principal.kind === 'user' ? scopesForRole(principal.user.role) : (JSON.parse(principal.key.scopes) as string[]);
}

/** callerId is the session's own id: a session has its own rate-limit window and idempotency keys, apart from its key. */
export function sessionAuthContext(live: LiveSession, env: RunEnvironment): AuthContext {
  const { row, principal } = live;
  if (principal.kind === 'user') {
    const { user } = principal;
    return { callerId: row.id, keyId: null, keyName: user.email, sessionId: row.id, scopes: scopesOf(principal), env, userId: user.id };
  }
  const { key } = principal;
  return {
    callerId: row.id,
    keyId: key.id,
    keyName: key.name,
    sessionId: row.id,
    scopes: scopesOf(principal),
    env: key.env as RunEnvironment,
    userId: key.user_id,
  };
}

export function toSessionRecord(live: LiveSession): SessionRecord {
  const { row, principal } = live;
  const d = sessionDeadlines(Date.parse(row.created_at), live.lastSeenMs, live.policy);
  return {
    id: row.id,
    user:
      principal.kind === 'user'
        ? { id: principal.user.id, email: principal.user.email, name: principal.user.name, role: principal.user.role }
        : null,
    key: principal.kind === 'key' ? { id: principal.key.id, name: principal.key.name } : null,
    scopes: scopesOf(principal),
    created_at: row.created_at,
    expires_at: isoTime(d.expiresAtMs),
    idle_expires_at: isoTime(d.idleExpiresAtMs),
  };
}

/** The session the request came with, as it stands after this request (which is itself a use). */
export async function currentSession(deps: SessionServiceDeps, sessionId: string): Promise<LiveSession> {
  const row = await findSessionById(deps.db, sessionId);
  // Signed out by a request that ran at the same time.
  if (!row) throw unknownSession();
  return checkSession(deps, row, deps.clock.now());
}

export async function signOut(deps: SessionServiceDeps, sessionId: string): Promise<void> {
  await deleteSession(deps.db, sessionId);
}
