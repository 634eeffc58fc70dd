// Idempotency-Key on creating POSTs: the first response (2xx/4xx) is stored 24 h per API key and replayed; reuse with another request is 409.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type Koa from 'koa';
import { getAuth } from './middleware/auth-context.js';
import { presentedKey } from './middleware/credentials.js';
import { readSessionCookie } from './middleware/session-cookie.js';
import { AppError, badRequest } from '../errors.js';
import type { HttpDeps } from './http-deps.js';
import { errorResponseBody } from './error-middleware.js';
import { newId } from '../ids.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_MAX = 255;
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** Response headers worth replaying; rate-limit and request-id headers belong to the new response. */
const STORED_HEADERS = ['location', 'content-type'];

interface StoredResponse {
  body: unknown;
  headers: Record<string, string>;
}

interface Row {
  fingerprint: string;
  status: number | null;
  response: string | null;
}


/** JSON with object keys sorted at every level, so {"a":1,"b":2} and {"b":2,"a":1} fingerprint alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Method, path (with query) and body. JSON bodies are compared parsed and canonical (whitespace and key order do not
 * matter); a body the route streams itself (multipart upload) is represented by its content type and length.
 */
export function requestFingerprint(ctx: Koa.Context): string {
  const parsed = (ctx.request as unknown as { body?: unknown }).body;
  const body =
    parsed !== undefined
      ? canonicalJson(parsed)
      : `stream:${ctx.get('Content-Type')}:${ctx.get('Content-Length') || ctx.get('Transfer-Encoding')}`;
  return createHash('sha256').update(`${ctx.method}\n${ctx.path}?${ctx.querystring}\n${body}`).digest('hex');
}

/**
 * Stored responses can hold secrets (POST /v1/api-keys returns the new key once), so with an authenticated caller they
 * are sealed with AES-256-GCM under a key derived from the caller's own secret (its API key, or its session cookie's
 * token): the database alone cannot reveal them, and only the same caller can have them replayed.
 */
function sealingKey(ctx: Koa.Context, idemKey: string): Buffer | null {
  const auth = getAuth(ctx);
  const secret = !auth
    ? null
    : auth.sessionId !== null
      ? readSessionCookie(ctx.get('Cookie') || undefined)
      : presentedKey(ctx.get('Authorization') || undefined, ctx.headers['x-api-key'] as string | undefined);
  return secret ? createHash('sha256').update(`printfarm idempotency\0${secret}\0${idemKey}`).digest() : null;
}

function seal(json: string, key: Buffer | null): string {
  if (!key) return json;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
  return `sealed:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
}

function unseal(stored: string, key: Buffer | null): string {
  if (!stored.startsWith('sealed:')) return stored;
  const raw = Buffer.from(stored.slice('sealed:'.length), 'base64');
  if (!key) throw new Error('sealed idempotent response without a caller key');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

function readKey(ctx: Koa.Context): string | undefined {
  const raw = ctx.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw.join(', ') : raw;
  if (key.trim() === '') throw badRequest('header Idempotency-Key: must not be empty');
  if (key.length > IDEMPOTENCY_KEY_MAX) {
    throw badRequest(`header Idempotency-Key: must be at most ${IDEMPOTENCY_KEY_MAX} characters long`);
  }
  return key;
}

function replayable(body: unknown): boolean {
  if (body == null) return true;
  if (Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return false;
  return true;
}

function storedHeaders(ctx: Koa.Context, extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    const v = ctx.response.get(name);
    if (v) out[name] = v;
  }
  for (const [name, v] of Object.entries(extra)) out[name.toLowerCase()] = v;
  return out;
}

/** Runs a creating handler at most once per (caller, Idempotency-Key); requests without the header just run. */
export type IdempotentRunner = (ctx: Koa.Context, run: () => Promise<void>) => Promise<void>;

/**
 * One runner per app (mountRoutes makes it). Its set holds the requests this app is running now. A row still "in
 * progress" is taken over instead of blocking the key for 24 h only when its holder is surely not running it: this
 * node without the slot in its set (an earlier run died mid-request), or a node that is lost or stopped. A key held
 * by another node that is alive is never taken over. Before the first request, this node's keys left in progress by an
 * earlier run are released, so a retry on any node runs.
 */
export function idempotentRunner(deps: HttpDeps): IdempotentRunner {
  const running = new Set<string>();
  const self = deps.node?.id ?? newId('nod');
  let cleared: Promise<void> | null = null;
  return async (ctx, run) => {
    cleared ??= releaseOwnLeftovers(deps.db, self).catch((err: unknown) => {
      cleared = null;
      throw err;
    });
    await cleared;
    return withIdempotency(ctx, deps, self, running, run);
  };
}

/** Keys an earlier run of this node left in progress: nothing runs them now (this run has not started any). */
async function releaseOwnLeftovers(db: HttpDeps['db'], self: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('node_id', '=', self).where('status', 'is', null).execute();
}

/** Whether the holder of an in-progress key surely runs it no more (see idempotentRunner). */
async function holderGone(trx: HttpDeps['db'], holder: string | null, self: string): Promise<boolean> {
  // Written before keys had holders (one box then), or by this node in an earlier run.
  if (holder === null || holder === self) return true;
  const node = await trx.selectFrom('nodes').select('state').where('id', '=', holder).executeTakeFirst();
  // A node with no row yet is starting (it serves before it registers): alive.
  return node !== undefined && node.state !== 'online';
}

async function withIdempotency(ctx: Koa.Context, deps: HttpDeps, self: string, busy: Set<string>, run: () => Promise<void>): Promise<void> {
  const key = readKey(ctx);
  if (key === undefined) return run();

  const db = deps.db;
  // Per API key or session; requests without one (a route open to all) share the client address's namespace.
  const owner = getAuth(ctx)?.callerId ?? `ip:${ctx.ip}`;
  const fingerprint = requestFingerprint(ctx);
  const sealWith = sealingKey(ctx, key);
  const now = deps.clock.now();
  const slot = `${owner}\u0000${key}`;

  const where = { api_key_id: owner, idem_key: key };
  // One transaction around look-up and claim. The claim is an INSERT … ON CONFLICT DO NOTHING: of two requests racing
  // with one key (two pool connections on PostgreSQL), the second's insert waits for the first's commit and then
  // inserts nothing, so it reads the first's row (in progress) instead of claiming the key a second time.
  const existing = await db
    .transaction()
    .execute(async (trx): Promise<Row | undefined> => {
      await trx.deleteFrom('idempotency_keys').where('created_ms', '<=', now - IDEMPOTENCY_TTL_MS).execute();
      const claimed = await trx
        .insertInto('idempotency_keys')
        .values({ ...where, fingerprint, status: null, response: null, created_ms: now, node_id: self })
        .onConflict((oc) => oc.columns(['api_key_id', 'idem_key']).doNothing())
        .returning('idem_key')
        .executeTakeFirst();
      if (claimed) {
        busy.add(slot);
        return undefined;
      }
      const row = await trx.selectFrom('idempotency_keys').select(['fingerprint', 'status', 'response', 'created_ms', 'node_id']).where('api_key_id', '=', owner).where('idem_key', '=', key).executeTakeFirst();
      if (!row || row.status !== null || busy.has(slot)) return row ?? { fingerprint, status: null, response: null };
      if (!(await holderGone(trx, row.node_id, self))) return row;
      // Left in progress by a process that died mid-request: taken over, by one request only (the row must be unchanged).
      const taken = await trx
        .updateTable('idempotency_keys')
        .set({ fingerprint, status: null, response: null, created_ms: now, node_id: self })
        .where('api_key_id', '=', owner)
        .where('idem_key', '=', key)
        .where('status', 'is', null)
        .where('created_ms', '=', row.created_ms)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 0) return row;
      busy.add(slot);
      return undefined;
    })
    .catch((err: unknown) => {
      // The claim did not commit: the slot is not ours.
      busy.delete(slot);
      throw err;
    });

  if (existing) {
    if (existing.fingerprint !== fingerprint) {
      throw new AppError(
        409,
        'invalid_request',
        'Idempotency-Key was already used with a different request',
        'an Idempotency-Key stays bound to the method, path and body of its first request for 24 hours; use a new key',
      );
    }
    if (existing.status === null) {
      throw new AppError(409, 'invalid_request', 'a request with this Idempotency-Key is still being processed', 'retry after it has finished');
    }
    const stored = JSON.parse(unseal(existing.response ?? '{}', sealWith)) as StoredResponse;
    for (const [name, v] of Object.entries(stored.headers ?? {})) ctx.set(name, v);
    ctx.body = stored.body ?? null;
    ctx.status = existing.status;
    ctx.set(REPLAYED_HEADER, 'true');
    return;
  }

  const release = async (): Promise<void> => {
    // Only while still this node's: a node declared lost whose request ends late leaves its taker's row alone.
    await db.deleteFrom('idempotency_keys').where('api_key_id', '=', owner).where('idem_key', '=', key).where('node_id', '=', self).execute();
  };
  const store = async (status: number, stored: StoredResponse): Promise<void> => {
    await db
      .updateTable('idempotency_keys')
      .set({ status, response: seal(JSON.stringify(stored), sealWith) })
      .where('api_key_id', '=', owner)
      .where('idem_key', '=', key)
      .where('node_id', '=', self)
      .execute();
  };

  try {
    await run();
    // A server failure is not the answer to keep: the client may retry with the same key.
    if (ctx.status >= 500 || !replayable(ctx.body)) await release();
    else await store(ctx.status, { body: ctx.body ?? null, headers: storedHeaders(ctx) });
  } catch (err) {
    if (err instanceof AppError && err.status < 500) {
      await store(err.status, { body: errorResponseBody(err), headers: storedHeaders(ctx, err.headers) });
    } else {
      await release();
    }
    throw err;
  } finally {
    busy.delete(slot);
  }
}
