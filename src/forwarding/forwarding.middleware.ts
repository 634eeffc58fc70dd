// Actions on a printer another node owns (control actions, console commands, cancelling its running job) are replayed
// to that node with the caller's own credentials and answered with its answer: only the owner has the printer's link.
import type Koa from 'koa';
import { AppError } from '../errors.js';
import type { Db } from '../storage/db.js';
import type { NodeIdentity } from '../nodes/node-identity.js';
import { getAuth } from '../http/middleware/auth-context.js';
import { originOf } from '../http/middleware/request-origin.js';
import { findOwnerNode, printerOwnerId, runningJobOwnerId, type OwnerNode } from './owner.repository.js';
import { replayRequest } from './replay-request.js';

/** Set on a replayed request: the node that forwarded it. A request carrying it is answered here, never forwarded again. */
export const FORWARDED_BY_HEADER = 'X-Printfarm-Forwarded-By';
/** Set on the answer to a forwarded request: the node that answered it. */
export const FORWARDED_TO_HEADER = 'X-Printfarm-Forwarded-To';

export interface ForwardingOptions {
  /** Reaching the owner (down: no connection in this time). */
  connectTimeoutMs?: number;
  /** The owner's answer to a control action or a cancel. */
  replyTimeoutMs?: number;
  /** The owner's answer to console commands, which wait for the firmware (each up to the command timeout). */
  commandsReplyTimeoutMs?: number;
}

export interface ForwardingDeps {
  db: Db;
  node: NodeIdentity;
  forwarding?: ForwardingOptions;
}

const MAX_BODY_BYTES = 1024 * 1024;
/** Request headers the owner needs: who the caller is (it checks the key or session again), what is sent, idempotency. */
const REQUEST_HEADERS = ['authorization', 'cookie', 'content-type', 'accept', 'idempotency-key', 'x-request-id', 'user-agent'];
/** Answer headers that belong to the owner's result; rate-limit headers stay this node's own. */
const ANSWER_HEADERS = ['content-type', 'location', 'retry-after', 'idempotent-replayed', 'www-authenticate', 'allow'];

type Target = { kind: 'printer' | 'job'; id: string; commands: boolean };

/** Which forwardable route a request is, if any. */
function forwardTarget(method: string, path: string): Target | null {
  let m = method === 'POST' ? /^\/v1\/printers\/([^/]+)\/(actions|commands)$/.exec(path) : null;
  if (m) return { kind: 'printer', id: safeDecode(m[1]!), commands: m[2] === 'commands' };
  m = method === 'DELETE' ? /^\/v1\/jobs\/([^/]+)$/.exec(path) : null;
  if (m) return { kind: 'job', id: safeDecode(m[1]!), commands: false };
  return null;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const unavailable = (what: string, owner: Pick<OwnerNode, 'id' | 'name'>, reason: string): AppError =>
  new AppError(503, 'node_unavailable', `${what} is run by node "${owner.name}" (${owner.id}), which is unavailable: ${reason}`, 'try again when that node is back online');

async function readBody(req: Koa.Request['req']): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new AppError(413, 'invalid_request', `the request body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function forwardToOwner(deps: ForwardingDeps): Koa.Middleware {
  const o = deps.forwarding ?? {};
  return async (ctx, next) => {
    const target = forwardTarget(ctx.method, ctx.path);
    // Unauthenticated callers get their 401 here; a request another node forwarded is always answered here (no loops).
    if (!target || !getAuth(ctx) || ctx.get(FORWARDED_BY_HEADER)) return next();
    // An id no row can hold (a NUL: PostgreSQL text refuses it) is the route's to refuse with its 400, not a lookup here.
    if (target.id.includes('\u0000')) return next();
    const ownerId = target.kind === 'printer' ? await printerOwnerId(deps.db, target.id) : await runningJobOwnerId(deps.db, target.id);
    if (ownerId === null || ownerId === deps.node.id) return next();
    const what = target.kind === 'printer' ? `printer ${target.id}` : `the print of job ${target.id}`;
    const owner = (await findOwnerNode(deps.db, ownerId)) ?? { id: ownerId, name: ownerId, address: null, state: 'lost' as const };
    if (owner.state !== 'online') throw unavailable(what, owner, `it is ${owner.state}`);
    if (!owner.address) throw unavailable(what, owner, 'it has no address other nodes can reach');

    const headers: Record<string, string> = { [FORWARDED_BY_HEADER]: deps.node.id };
    for (const name of REQUEST_HEADERS) {
      const value = ctx.get(name);
      if (value) headers[name] = value;
    }
    // This node already checked a cookie request's origin; the owner sees another Host, so it is told the verdict.
    if (originOf(ctx) === 'same-origin') headers['sec-fetch-site'] = 'same-origin';
    let answer;
    try {
      answer = await replayRequest({
        url: new URL(ctx.originalUrl, owner.address).toString(),
        method: ctx.method,
        headers,
        body: await readBody(ctx.req),
        connectTimeoutMs: o.connectTimeoutMs ?? 3_000,
        replyTimeoutMs: target.commands ? (o.commandsReplyTimeoutMs ?? 120_000) : (o.replyTimeoutMs ?? 10_000),
      });
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw unavailable(what, owner, (err as Error).message);
    }
    ctx.status = answer.status;
    for (const name of ANSWER_HEADERS) {
      const value = answer.headers[name];
      if (typeof value === 'string') ctx.set(name, value);
    }
    ctx.set(FORWARDED_TO_HEADER, owner.id);
    if (answer.body.length > 0) ctx.body = answer.body;
  };
}
