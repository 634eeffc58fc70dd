// First start on an empty database (organization, owner, admin:* key written to a 0600 file) and offline key minting.
import { chmodSync, closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { isoTime, type Clock } from '../clock.js';
import type { RunEnvironment } from '../config.js';
import { newId } from '../ids.js';
import type { Db } from '../storage/db.js';
import type { Database } from '../storage/schema.js';
import { toApiKeyRecord } from './api-key-record.js';
import type { ApiKeyRecord } from './api-keys.schemas.js';
import { createApiKey } from './api-keys.service.js';
import { findOrganization, insertOrganization } from './organization.repository.js';
import { ADMIN_SCOPE } from './scopes.js';
import { findOwner, insertUser } from './users.repository.js';

export const INITIAL_ADMIN_KEY_FILE = 'initial-admin-key.txt';
export const DEFAULT_ORGANIZATION_NAME = 'My print farm';
export const OWNER_EMAIL = 'owner@printfarm.local';

export interface BootstrapDeps {
  db: Db;
  clock: Clock;
  env: RunEnvironment;
}

/** Creates the organization and the owner where missing; returns the owner's id. */
async function ensureOrganizationAndOwner(trx: Kysely<Database>, clock: Clock): Promise<string> {
  const now = isoTime(clock.now());
  if (!(await findOrganization(trx))) {
    await insertOrganization(trx, {
      id: newId('org'),
      name: DEFAULT_ORGANIZATION_NAME,
      // A self-hosted install is its own enterprise: the limit only guards against runaway scripts.
      plan: 'enterprise',
      rate_limit_per_hour: 100_000,
      currency: 'USD',
      hourly_rate: 0,
      energy_cost_per_kwh: 0,
      timezone: 'UTC',
      auto_start: 1,
      created_at: now,
      updated_at: now,
    });
  }
  const owner = await findOwner(trx);
  if (owner) return owner.id;
  const id = newId('usr');
  await insertUser(trx, {
    id,
    email: OWNER_EMAIL,
    name: 'Owner',
    role: 'owner',
    status: 'active',
    invite_token_hash: null,
    invited_by: null,
    created_at: now,
    updated_at: now,
  });
  return id;
}

/** Writes the file under a temporary name with mode 0600 and renames it, so no reader ever sees a partial key. */
export function writeSecretFileAtomic(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    // The mode given to open is filtered by the umask; set it explicitly.
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * On a database without an organization: creates it, the owner and an admin:* key, writes the key to
 * `<dataDir>/initial-admin-key.txt` (0600) and returns it for printing once. Any later start returns null.
 * The file is written inside the transaction: if it cannot be written nothing is created, so no key is ever lost.
 */
export async function ensureInitialAdmin(
  deps: BootstrapDeps,
  dataDir: string,
  /**
   * initializes: this node won the database identity insert (cluster/database-identity.ts). Several nodes starting at
   * once on one new database would otherwise each create an organization and a key; only the winner does, the others
   * find them there.
   */
  options: { initializes: boolean } = { initializes: true },
): Promise<string | null> {
  if (!options.initializes) return null;
  return deps.db.transaction().execute(async (trx) => {
    if (await findOrganization(trx)) return null;
    const ownerId = await ensureOrganizationAndOwner(trx, deps.clock);
    const { key } = await createApiKey(
      { ...deps, db: trx },
      { scopes: [ADMIN_SCOPE], keyId: null, userId: ownerId },
      { name: 'Initial admin key', scopes: [ADMIN_SCOPE] },
    );
    writeSecretFileAtomic(path.join(dataDir, INITIAL_ADMIN_KEY_FILE), `${key}\n`);
    return key;
  });
}

/**
 * Mints a key without a running server (recovery, scripting): any known scopes, owned by the owner. Creates the
 * organization and owner if the database is new. Scope errors are thrown as AppError (400 for unknown scopes).
 */
export async function mintKeyOffline(
  deps: BootstrapDeps,
  input: { name: string; scopes: readonly string[] },
): Promise<{ key: string; record: ApiKeyRecord }> {
  return deps.db.transaction().execute(async (trx) => {
    const ownerId = await ensureOrganizationAndOwner(trx, deps.clock);
    const { row, key } = await createApiKey({ ...deps, db: trx }, { scopes: [ADMIN_SCOPE], keyId: null, userId: ownerId }, input);
    return { key, record: toApiKeyRecord(row, deps.clock.now()) };
  });
}
