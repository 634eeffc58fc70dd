// API key rules: minting without escalation, verification (format, environment, hash, revoke, expiry), revoke and roll.
import { sql, type Expression, type SqlBool } from 'kysely';
import { isoTime, type Clock } from '../clock.js';
import type { RunEnvironment } from '../config.js';
import { AppError, badRequest, invalidState, notFound, quoteInput, unauthorized } from '../errors.js';
import { newId } from '../ids.js';
import type { ListSpec } from '../http/list-query.js';
import { customCondition, runListQuery, type ListCondition, type ListPage, type ListQuery } from '../storage/list-page.js';
import type { Db } from '../storage/db.js';
import { openDigestHa1, sealedDigestHa1, type SecretSealer } from './api-key-digest.js';
import { displayPrefix, hashKey, hashesEqual, keyEnvironment, mintKeyString } from './api-key-format.js';
import { apiKeyStatus, toApiKeyRecord } from './api-key-record.js';
import { API_KEY_STATUSES, type ApiKeyRecord, type ApiKeyStatus, type CreateKeyBody } from './api-keys.schemas.js';
import { findApiKeyByHash, findApiKeyById, findApiKeysByPrefix, insertApiKey, selectApiKeys, updateApiKey, type ApiKeyRow } from './api-keys.repository.js';
import type { AuthContext } from '../http/middleware/auth-context.js';
import { firstUncovered, firstUnknownScope, KNOWN_SCOPES } from './scopes.js';

export interface KeyServiceDeps {
  db: Db;
  clock: Clock;
  env: RunEnvironment;
  /** Seals the Digest secret of keys that may upload from a slicer; without it such keys take only X-Api-Key. */
  secrets?: SecretSealer;
}

/** Who asks for a new key: its scopes bound what it may grant. */
export interface KeyMinter {
  scopes: readonly string[];
  keyId: string | null;
  userId: string | null;
}

export const ROLL_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Unknown scopes are a 400 naming the scope; scopes the minter does not hold are a 403 naming the scope. */
export function checkGrantableScopes(minter: readonly string[], requested: readonly string[]): void {
  const unknown = firstUnknownScope(requested);
  if (unknown) {
    throw badRequest(`scopes[${unknown.index}]: unknown scope ${quoteInput(unknown.scope)}`, `known scopes: ${KNOWN_SCOPES.join(', ')}`);
  }
  const uncovered = firstUncovered(minter, requested);
  if (uncovered) {
    throw new AppError(403, 'insufficient_permissions', `missing scope: ${uncovered} (a key can only grant scopes it holds)`);
  }
}

export async function createApiKey(
  deps: KeyServiceDeps,
  minter: KeyMinter,
  input: Pick<CreateKeyBody, 'name'> & { scopes: readonly string[] },
): Promise<{ row: ApiKeyRow; key: string }> {
  const name = input.name.trim();
  if (!name) throw badRequest('name: must not be blank');
  const scopes = [...new Set(input.scopes)];
  if (scopes.length === 0) throw badRequest('scopes: must have at least 1 items');
  checkGrantableScopes(minter.scopes, scopes);
  const key = mintKeyString(deps.env);
  const id = newId('key');
  const row: ApiKeyRow = {
    id,
    name,
    env: deps.env,
    prefix: displayPrefix(key),
    hash: hashKey(key),
    scopes: JSON.stringify(scopes),
    user_id: minter.userId,
    created_by_key_id: minter.keyId,
    created_at: isoTime(deps.clock.now()),
    last_used_at: null,
    expires_at: null,
    revoked_at: null,
    rolled_to: null,
    digest_ha1: sealedDigestHa1(deps.secrets, id, displayPrefix(key), key, scopes),
  };
  await insertApiKey(deps.db, row);
  return { row, key };
}

/** The caller behind a presented key string, or a 401 saying why it is refused. */
export async function verifyApiKey(deps: KeyServiceDeps, presented: string): Promise<AuthContext> {
  const env = keyEnvironment(presented);
  if (!env) throw unauthorized('invalid API key: expected svc_<environment>_ followed by at least 32 letters and digits');
  if (env !== deps.env) {
    throw unauthorized(`this API key belongs to the ${env} environment; this server runs in the ${deps.env} environment`);
  }
  const hash = hashKey(presented);
  const row = await findApiKeyByHash(deps.db, hash);
  // The lookup is by digest; the constant-time compare keeps the final decision free of data-dependent timing.
  if (!row || !hashesEqual(row.hash, hash)) throw unauthorized('invalid API key');
  return callerOfKey(deps, row);
}

/**
 * The caller behind HTTP Digest credentials (slicer uploads): the keys of this environment with that display prefix
 * (one, bar a 1-in-10^10 clash), the first whose stored HA1 `matches` the client's response.
 */
export async function verifyDigestKey(deps: KeyServiceDeps, username: string, matches: (ha1: string) => boolean): Promise<AuthContext> {
  const rows = await findApiKeysByPrefix(deps.db, deps.env, username);
  for (const row of rows) {
    const ha1 = openDigestHa1(deps.secrets, row.id, row.digest_ha1);
    if (ha1 !== null && matches(ha1)) return callerOfKey(deps, row);
  }
  throw unauthorized(
    rows.length === 0
      ? 'invalid Digest user name: use the key prefix shown with the key (svc_<environment>_ and 6 characters)'
      : 'invalid Digest password for this key, or the key may not upload from a slicer (make one under Settings → Connect a slicer)',
  );
}

/** A stored key as the caller, or the 401 saying it was revoked or has expired. */
function callerOfKey(deps: KeyServiceDeps, row: ApiKeyRow): AuthContext {
  if (row.revoked_at) throw unauthorized(`this API key was revoked at ${row.revoked_at}`);
  const now = deps.clock.now();
  if (row.expires_at && Date.parse(row.expires_at) <= now) {
    throw unauthorized(`this API key expired at ${row.expires_at}${row.rolled_to ? ` (it was rolled to ${row.rolled_to})` : ''}`);
  }
  return {
    callerId: row.id,
    keyId: row.id,
    keyName: row.name,
    sessionId: null,
    scopes: JSON.parse(row.scopes) as string[],
    env: row.env as RunEnvironment,
    userId: row.user_id,
  };
}

/** A key of this server's environment by id; other environments' keys are invisible here. */
/** Whether the key with this id still works now (not revoked, not past a roll's overlap): a long-lived stream asks. */
export async function apiKeyStillValid(db: KeyServiceDeps['db'], keyId: string, nowMs: number): Promise<boolean> {
  const key = await findApiKeyById(db, keyId);
  return key !== undefined && ['active', 'expiring'].includes(apiKeyStatus(key, nowMs));
}

export async function getApiKey(deps: KeyServiceDeps, id: string): Promise<ApiKeyRow> {
  const row = await findApiKeyById(deps.db, id);
  if (!row || row.env !== deps.env) throw notFound('API key', id);
  return row;
}

const STATUS_SQL: Record<ApiKeyStatus, (nowIso: string) => Expression<SqlBool>> = {
  active: () => sql<SqlBool>`revoked_at IS NULL AND expires_at IS NULL`,
  expiring: (nowIso) => sql<SqlBool>`revoked_at IS NULL AND expires_at > ${nowIso}`,
  expired: (nowIso) => sql<SqlBool>`revoked_at IS NULL AND expires_at <= ${nowIso}`,
  revoked: () => sql<SqlBool>`revoked_at IS NOT NULL`,
};

/** The list of keys: parsed by the list-query helper from this spec; `status` is resolved against the clock in listKeys. */
export const KEY_LIST_SPEC: ListSpec = {
  fields: ['id', 'name', 'scopes', 'prefix', 'environment', 'created_at', 'last_used_at', 'expires_at', 'revoked_at', 'status'],
  sortable: ['created_at', 'name', 'last_used_at'],
  filters: {
    status: {
      type: 'enum',
      values: API_KEY_STATUSES,
      description: 'active; expiring (rolled, inside its 24 h overlap); expired; revoked',
      where: (v) => STATUS_SQL[v as ApiKeyStatus](new Date(0).toISOString()),
    },
  },
};

export async function listKeys(
  deps: KeyServiceDeps,
  q: ListQuery,
  lastUsed: (keyId: string) => string | null,
): Promise<ListPage<Partial<ApiKeyRecord>>> {
  const now = deps.clock.now();
  const nowIso = isoTime(now);
  // Whether a rolled key still works depends on the service clock, so the status condition is bound to it here.
  const where: ListCondition[] = q.where.map((c) =>
    c.param === 'status' ? customCondition(c, (v) => STATUS_SQL[v as ApiKeyStatus](nowIso)) : c,
  );
  return runListQuery(selectApiKeys(deps.db, deps.env), { ...q, where }, (row) => ({ ...toApiKeyRecord(row, now, lastUsed(row.id)) }));
}

/** Revokes at once (the next request with it is refused); revoking again changes nothing. */
export async function revokeApiKey(deps: KeyServiceDeps, id: string): Promise<ApiKeyRow> {
  const row = await getApiKey(deps, id);
  if (row.revoked_at) return row;
  const revoked_at = isoTime(deps.clock.now());
  await updateApiKey(deps.db, id, { revoked_at });
  return { ...row, revoked_at };
}

/** A new key with the same name and scopes; the old one keeps working for 24 hours, then is refused. */
export async function rollApiKey(deps: KeyServiceDeps, id: string, actorKeyId: string | null): Promise<{ row: ApiKeyRow; key: string }> {
  return deps.db.transaction().execute(async (trx) => {
    const old = await findApiKeyById(trx, id);
    if (!old || old.env !== deps.env) throw notFound('API key', id);
    if (old.revoked_at) throw invalidState(`API key ${id} was revoked at ${old.revoked_at}; create a new key instead`);
    if (old.rolled_to) throw invalidState(`API key ${id} was already rolled to ${old.rolled_to}`);
    const now = deps.clock.now();
    const key = mintKeyString(deps.env);
    const newKeyId = newId('key');
    const row: ApiKeyRow = {
      ...old,
      id: newKeyId,
      prefix: displayPrefix(key),
      hash: hashKey(key),
      created_by_key_id: actorKeyId,
      created_at: isoTime(now),
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
      rolled_to: null,
      digest_ha1: sealedDigestHa1(deps.secrets, newKeyId, displayPrefix(key), key, JSON.parse(old.scopes) as string[]),
    };
    await insertApiKey(trx, row);
    await updateApiKey(trx, id, { expires_at: isoTime(now + ROLL_OVERLAP_MS), rolled_to: row.id });
    return { row, key };
  });
}
