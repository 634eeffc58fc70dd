// Two nodes (two apps on one PostgreSQL database) send one farm's webhook deliveries: each exactly once, one attempt
// in flight per webhook for the whole farm in sequence order, and a delivery claimed by a node that died mid-send goes
// out once the node is declared lost (or, never declared, once its lease ends).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.js';
import { claimDueDeliveriesOf } from '../../src/webhooks/deliveries.repository.js';
import { markLostIf } from '../../src/nodes/nodes.repository.js';
import { startCountingReceiver } from './counting-receiver.js';
import { pgSkipReason } from '../helpers/pg-for-tests.js';
import { freshPgDatabases } from '../helpers/pg-databases.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { eventually, startReceiver, type Obj, type Receiver } from './webhook-harness.js';

const LEASE_MS = 40_000;

describe('webhook deliveries shared by two nodes', { skip: pgSkipReason() }, () => {
  const { open, create } = freshPgDatabases();

  /** Two apps on a fresh database with one clock, a receiver and a webhook to it for every event. */
  async function farm(extra: { safetyPollMs?: number; perWebhook?: number; goneLeasesCheckMs?: number } = {}, url?: string): Promise<{ a: TestApp; b: TestApp; rx: Receiver; hook: string }> {
    const databaseUrl = await create();
    const clock = new ManualClock();
    // Several in flight per node and per webhook: the claim, not the worker's own list, keeps the nodes apart.
    const webhooks = { random: () => 0.5, timeoutMs: 3000, perWebhook: 8, leaseMs: LEASE_MS, ...extra };
    const a = await startTestApp({ databaseUrl, clock, webhooks });
    open.push(a);
    const b = await startTestApp({ databaseUrl, clock, webhooks });
    open.push(b);
    const rx = await startReceiver();
    open.push(rx);
    const key = await mintTestKey(a);
    const res = await a.request('/v1/webhooks', { method: 'POST', headers: bearer(key, true), body: JSON.stringify({ url: url ?? rx.url, events: ['*'], secret: 'test-secret-0123456789' }) });
    assert.equal(res.status, 201, await res.clone().text());
    return { a, b, rx, hook: ((await res.json()) as Obj).id as string };
  }

  const eventIds = (rx: Receiver): string[] => rx.received.map((r) => String(r.headers['x-event-id']));

  it('delivers every event once while both nodes send', async () => {
    const { a, b, rx } = await farm();
    const N = 80;
    for (let i = 0; i < N; i++) await (i % 2 === 0 ? a : b).deps.events.recordNow('job.created', { id: `job_${i}` });
    await eventually(async () => (await a.deps.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').execute()).length === 0, 'no delivery pending', 20_000);
    await eventually(() => rx.received.length >= N, `${N} deliveries`, 5000);
    const ids = eventIds(rx);
    assert.equal(new Set(ids).size, N, 'every event delivered');
    assert.equal(ids.length, N, 'no event delivered twice');
    const byNode = [a, b].map((t) => t.deps.webhooks.worker.outcomes.delivered);
    assert.equal(byNode[0]! + byNode[1]!, N, `attempts recorded by the nodes: ${byNode.join(' + ')}`);
  });

  it('one attempt in flight per webhook for the whole farm, in sequence order', async () => {
    const counting = await startCountingReceiver(40);
    open.push(counting);
    // Each node may have one attempt per webhook in flight (the default): the farm as a whole must still have one.
    const { a, b } = await farm({ perWebhook: 1 }, counting.url);
    const N = 30;
    for (let i = 0; i < N; i++) await (i % 2 === 0 ? a : b).deps.events.recordNow('job.created', { id: `job_${i}` });
    await eventually(async () => (await a.deps.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').execute()).length === 0, 'no delivery pending', 20_000);
    assert.equal(counting.maxParallel, 1, 'never two attempts at once');
    assert.deepEqual(counting.arrivals.map((r) => r.sequence), Array.from({ length: N }, (_, i) => i + 1), 'in sequence order, each once');
    const byNode = [a, b].map((t) => t.deps.webhooks.worker.outcomes.delivered);
    assert.ok(byNode.every((n) => n > 0), `both nodes sent some: ${byNode.join(' + ')}`);
  });

  /** A's worker stopped, B's too for now; A leases the one delivery as a node killed before it could send it would. */
  async function leasedByStoppedNode(extra: { goneLeasesCheckMs?: number } = {}): Promise<{ a: TestApp; b: TestApp; rx: Receiver; hook: string }> {
    const f = await farm(extra);
    await f.a.deps.webhooks.stop(0);
    await f.b.deps.webhooks.stop(0);
    await f.a.deps.events.recordNow('job.created', { id: 'job_orphan' });
    const now = f.a.clock.now();
    const claim = { nowMs: now, exclude: [], limit: 10, perWebhook: 10, leaseUntilMs: now + LEASE_MS };
    assert.equal((await claimDueDeliveriesOf(f.a.deps.db, f.hook, { ...claim, nodeId: f.a.deps.node.id })).length, 1);
    return f;
  }

  /** A declared lost, as the node that saw it silent does: the conditional mark, then the 'nodes' signal when `signal`. */
  async function declareLost(a: TestApp, b: TestApp, signal: boolean): Promise<void> {
    const row = await b.deps.db.selectFrom('nodes').select('beats').where('id', '=', a.deps.node.id).executeTakeFirstOrThrow();
    assert.ok(await markLostIf(b.deps.db, a.deps.node.id, row.beats, new Date().toISOString()));
    if (signal) await b.deps.cluster.publish('nodes', a.deps.node.id);
  }

  it('a delivery leased by a node declared lost is sent by another within seconds, long before its lease ends', async () => {
    const { a, b, rx, hook } = await leasedByStoppedNode();
    b.deps.webhooks.start();
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(rx.received.length, 0, 'not sent while its node is alive');
    // The clock never moves: only the node being lost can make the delivery due before its 40 s lease.
    const lostAt = Date.now();
    await declareLost(a, b, true);
    await eventually(() => rx.received.length === 1, 'the lost node\'s delivery', 10_000);
    console.log(`# sent ${Date.now() - lostAt} ms after the node was declared lost (signal)`);
    await eventually(async () => (await b.deps.db.selectFrom('webhook_deliveries').select('status').where('webhook_id', '=', hook).executeTakeFirstOrThrow()).status === 'delivered', 'delivered', 5000);
    const row = await b.deps.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook).executeTakeFirstOrThrow();
    assert.equal(row.attempts, 1);
    assert.equal(row.leased_by, null);
  });

  it('a lost node\'s leases are handed back within seconds even when the signal is missed', async () => {
    const { a, b, rx } = await leasedByStoppedNode({ goneLeasesCheckMs: 2000 });
    b.deps.webhooks.start();
    await new Promise((r) => setTimeout(r, 300));
    const lostAt = Date.now();
    await declareLost(a, b, false);
    await eventually(() => rx.received.length === 1, 'the lost node\'s delivery, by the periodic look', 10_000);
    console.log(`# sent ${Date.now() - lostAt} ms after the node was declared lost (no signal)`);
  });

  it('a delivery claimed by a node that died, not declared lost, waits for its lease, then goes out once', async () => {
    const { b, rx, hook } = await leasedByStoppedNode();
    const now = b.clock.now();
    const claim = { nowMs: now, exclude: [], limit: 10, perWebhook: 10, leaseUntilMs: now + LEASE_MS, nodeId: b.deps.node.id };
    assert.equal((await claimDueDeliveriesOf(b.deps.db, hook, claim)).length, 0, 'leased: no other claim');
    b.deps.webhooks.start();
    b.clock.advance(LEASE_MS - 1000);
    b.deps.webhooks.worker.wake();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(rx.received.length, 0, 'not sent while the lease runs');
    b.clock.advance(1000);
    b.deps.webhooks.worker.wake();
    await eventually(() => rx.received.length === 1, 'the orphaned delivery', 5000);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(eventIds(rx).length, 1);
    const row = await b.deps.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook).executeTakeFirstOrThrow();
    assert.equal(row.status, 'delivered');
    assert.equal(row.attempts, 1);
  });

  it('a delivery cut off by a node stopping is sent by the other node at once', async () => {
    // Polls an hour apart: only the 'deliveries' signal can make the other node look again within the wait below.
    const { a, b, rx } = await farm({ safetyPollMs: 3_600_000 });
    rx.behaviour = (_req, index) => (index === 0 ? { status: 204, hang: true } : { status: 204 });
    await a.deps.events.recordNow('job.created', { id: 'job_cut' });
    await eventually(() => rx.received.length === 1, 'the first (hanging) attempt', 5000);
    const [holder, other] = a.deps.webhooks.worker.busy === 1 ? [a, b] : [b, a];
    assert.equal(holder.deps.webhooks.worker.busy, 1);
    await holder.deps.webhooks.stop(0);
    await eventually(() => rx.received.length === 2, 'the attempt by the other node', 5000);
    await eventually(async () => (await other.deps.db.selectFrom('webhook_deliveries').select('status').executeTakeFirstOrThrow()).status === 'delivered', 'delivered', 5000);
  });
});
