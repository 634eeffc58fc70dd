// The outbox and the delivery worker against real receivers on 127.0.0.1: atomicity, signatures, retries, 410, isolation, restart.
import { after, afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../src/clock.js';
import { openDatabase } from '../../src/storage/db.js';
import { MAX_ATTEMPTS } from '../../src/webhooks/retry-schedule.js';
import { verifySignature } from '../../src/webhooks/signature.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { eventually, startReceiver, type Obj } from './webhook-harness.js';

const SECRET = 'test-secret-0123456789';
const open: Array<{ close(): Promise<void> }> = [];
const track = <T extends { close(): Promise<void> }>(x: T): T => (open.push(x), x);
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

async function app(options: Parameters<typeof startTestApp>[0] = {}): Promise<{ t: TestApp; key: string }> {
  const t = track(await startTestApp({ webhooks: { random: () => 0.5, timeoutMs: 3000 }, ...options }));
  return { t, key: await mintTestKey(t) };
}

async function createHook(t: TestApp, key: string, url: string, events: string[] = ['*']): Promise<string> {
  const res = await t.request('/v1/webhooks', { method: 'POST', headers: bearer(key, true), body: JSON.stringify({ url, events, secret: SECRET }) });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json() as Obj) as { id: string }).id;
}

const deliveries = (t: TestApp, webhookId: string) =>
  t.deps.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('seq').execute();

describe('outbox', () => {
  it('a rolled-back transaction leaves no event and no delivery; a committed one is delivered, signed', async () => {
    const { t, key } = await app();
    const rx = track(await startReceiver());
    const hook = await createHook(t, key, rx.url, ['job.*']);
    await assert.rejects(
      t.deps.db.transaction().execute(async (trx) => {
        await t.deps.events.record(trx, 'job.created', { id: 'job_rolled_back' });
        throw new Error('the state change failed');
      }),
      /state change failed/,
    );
    assert.equal((await t.deps.db.selectFrom('events').selectAll().execute()).length, 0);
    assert.equal((await deliveries(t, hook)).length, 0);

    const event = await t.deps.db.transaction().execute((trx) => t.deps.events.record(trx, 'job.created', { id: 'job_1', status: 'queued' }));
    // Not subscribed: no delivery row for it.
    await t.deps.events.recordNow('printer.online', { id: 'prt_1' });
    await eventually(() => rx.received.length === 1, 'the delivery');
    const got = rx.received[0]!;
    assert.equal(got.headers['x-event-id'], event.id);
    assert.equal(got.headers['x-event-type'], 'job.created');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.ok(verifySignature(String(got.headers['x-signature']), SECRET, got.body, t.clock.now() / 1000));
    const body = JSON.parse(got.body);
    assert.deepEqual(body, { id: event.id, type: 'job.created', created_at: event.created_at, data: { object: { id: 'job_1', status: 'queued' } }, sequence: 1 });
    await eventually(async () => (await deliveries(t, hook))[0]?.status === 'delivered', 'delivered status');
    assert.equal((await deliveries(t, hook)).length, 1);
  });

  it('keeps event order per webhook with consecutive sequence numbers', async () => {
    const { t, key } = await app();
    const rx = track(await startReceiver());
    await createHook(t, key, rx.url, ['job.*']);
    for (let i = 0; i < 15; i++) await t.deps.events.recordNow('job.started', { id: `job_${i}` });
    await eventually(() => rx.received.length === 15, '15 deliveries');
    const bodies = rx.received.map((r) => JSON.parse(r.body));
    assert.deepEqual(bodies.map((b) => b.data.object.id), [...Array(15).keys()].map((i) => `job_${i}`));
    assert.deepEqual(bodies.map((b) => b.sequence), [...Array(15).keys()].map((i) => i + 1));
  });
});

describe('delivery worker', () => {
  it('a receiver failing its first three attempts gets the event on the fourth, each after its back-off step', async () => {
    const clock = new ManualClock();
    const { t, key } = await app({ clock });
    const rx = track(await startReceiver((_r, i) => (i < 3 ? { status: 503, body: 'busy ' + 'x'.repeat(2000) } : { status: 200 })));
    const hook = await createHook(t, key, rx.url);
    await t.deps.events.recordNow('material.low', { id: 'mat_1' });
    await eventually(async () => (await deliveries(t, hook))[0]?.attempts === 1, 'the first attempt');
    let [d] = await deliveries(t, hook);
    assert.equal(d!.status, 'pending');
    assert.equal(d!.last_status_code, 503);
    assert.equal(d!.next_attempt_ms, clock.now() + 30_000, '30 s (jitter fixed at the middle)');
    assert.equal(Buffer.byteLength(d!.response_excerpt ?? ''), 1024, 'the excerpt is cut at 1 KB');

    clock.advance(29_000);
    t.deps.webhooks.worker.wake();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(rx.received.length, 1, 'not before its time');
    clock.advance(1_000);
    t.deps.webhooks.worker.wake();
    await eventually(async () => (await deliveries(t, hook))[0]?.attempts === 2, 'the second attempt');
    [d] = await deliveries(t, hook);
    assert.equal(d!.next_attempt_ms, clock.now() + 60_000, 'then 60 s');
    clock.advance(60_000);
    t.deps.webhooks.worker.wake();
    await eventually(async () => (await deliveries(t, hook))[0]?.attempts === 3, 'the third attempt');
    [d] = await deliveries(t, hook);
    assert.equal(d!.status, 'pending', 'still pending after three failures');
    assert.equal(d!.next_attempt_ms, clock.now() + 300_000, 'then 5 min');
    clock.advance(300_000);
    t.deps.webhooks.worker.wake();
    await eventually(async () => (await deliveries(t, hook))[0]?.status === 'delivered', 'delivered on the fourth attempt');
    assert.equal(rx.received.length, 4);
    assert.equal(new Set(rx.received.map((r) => r.headers['x-event-id'])).size, 1, 'the same event id every time');

    const list = (await (await t.request(`/v1/webhooks/${hook}/deliveries`, { headers: bearer(key) })).json() as Obj) as { data: Array<Record<string, unknown>> };
    assert.equal(list.data[0]!.attempts, 4);
    assert.equal(list.data[0]!.status_code, 200);
    assert.equal(list.data[0]!.event_type, 'material.low');
    assert.equal(typeof list.data[0]!.duration_ms, 'number');
    const one = (await (await t.request(`/v1/webhooks/${hook}/deliveries/${list.data[0]!.id}`, { headers: bearer(key) })).json()) as Obj;
    assert.deepEqual(one, list.data[0]);
  });

  it('after the last retry the delivery is failed and the webhook shows failing_since; a success clears it', async () => {
    const clock = new ManualClock();
    const { t, key } = await app({ clock });
    const rx = track(await startReceiver(() => ({ status: 500 })));
    const hook = await createHook(t, key, rx.url);
    await t.deps.events.recordNow('printer.error', { id: 'prt_1' });
    for (let n = 1; n <= MAX_ATTEMPTS; n++) {
      await eventually(async () => (await deliveries(t, hook))[0]?.attempts === n, `attempt ${n}`);
      clock.advance(9 * 3600 * 1000);
      t.deps.webhooks.worker.wake();
    }
    const [d] = await deliveries(t, hook);
    assert.equal(d!.status, 'failed');
    assert.equal(d!.next_attempt_ms, null);
    const hookRecord = await (await t.request(`/v1/webhooks/${hook}`, { headers: bearer(key) })).json() as Obj;
    assert.ok(hookRecord.failing_since, 'failing_since is set');
    assert.equal(hookRecord.enabled, true);

    rx.behaviour = () => ({ status: 200 });
    const retry = await t.request(`/v1/webhooks/${hook}/deliveries/${d!.id}/retry`, { method: 'POST', headers: bearer(key) });
    assert.equal(retry.status, 202);
    await eventually(async () => (await deliveries(t, hook))[0]?.status === 'delivered', 'the manual retry');
    assert.equal((await (await t.request(`/v1/webhooks/${hook}`, { headers: bearer(key) })).json() as Obj).failing_since, null);
  });

  it('410 Gone disables the webhook and ends its other waiting deliveries', async () => {
    const { t, key } = await app();
    const rx = track(await startReceiver(() => ({ status: 410 })));
    const hook = await createHook(t, key, rx.url);
    await t.deps.events.recordNow('job.created', { id: 'job_1' });
    await t.deps.events.recordNow('job.created', { id: 'job_2' });
    await eventually(async () => (await deliveries(t, hook)).every((d) => d.status === 'failed'), 'both failed');
    assert.equal(rx.received.length, 1, 'nothing more is sent after the 410');
    const record = await (await t.request(`/v1/webhooks/${hook}`, { headers: bearer(key) })).json() as Obj;
    assert.equal(record.enabled, false);
    assert.match(record.disabled_reason, /410/);
    await t.deps.events.recordNow('job.created', { id: 'job_3' });
    assert.equal((await deliveries(t, hook)).length, 2, 'a disabled webhook gets no new deliveries');
  });

  it('a hanging receiver does not delay another one', async () => {
    const { t, key } = await app();
    const hanging = track(await startReceiver(() => ({ status: 200, hang: true })));
    const fine = track(await startReceiver());
    await createHook(t, key, hanging.url);
    await createHook(t, key, fine.url);
    for (let i = 0; i < 5; i++) await t.deps.events.recordNow('job.started', { id: `job_${i}` });
    await eventually(() => fine.received.length === 5, 'all five at the healthy receiver', 2000);
    assert.equal(hanging.received.length, 1, 'the hanging receiver holds one attempt, its others wait in order');
  });

  it('a hanging attempt times out and is retried', async () => {
    const clock = new ManualClock();
    const { t, key } = await app({ clock, webhooks: { random: () => 0.5, timeoutMs: 200 } });
    const rx = track(await startReceiver((_r, i) => (i === 0 ? { status: 200, hang: true } : { status: 200 })));
    const hook = await createHook(t, key, rx.url);
    await t.deps.events.recordNow('job.started', { id: 'job_1' });
    await eventually(async () => (await deliveries(t, hook))[0]?.attempts === 1, 'the timed-out attempt');
    const [d] = await deliveries(t, hook);
    assert.equal(d!.last_status_code, null);
    assert.match(d!.last_error ?? '', /no complete answer within 0.2 s/);
    clock.advance(31_000);
    t.deps.webhooks.worker.wake();
    await eventually(async () => (await deliveries(t, hook))[0]?.status === 'delivered', 'the retry');
  });
});

describe('restart', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'printfarm-webhooks-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('an attempt interrupted by shutdown is sent again after reopening the database file', async () => {
    const file = path.join(dir, 'printfarm.sqlite');
    const rx = track(await startReceiver((_r, i) => (i === 0 ? { status: 200, hang: true } : { status: 200 })));
    const first = await startTestApp({ file });
    const key = await mintTestKey(first);
    const hook = await createHook(first, key, rx.url);
    const event = await first.deps.events.recordNow('job.completed', { id: 'job_1' });
    await eventually(() => rx.received.length === 1, 'the first attempt to hang');
    await first.close();
    const peek = openDatabase(file);
    const [d] = await peek.db.selectFrom('webhook_deliveries').selectAll().execute();
    assert.equal(d!.status, 'pending');
    assert.equal(d!.attempts, 0);
    await peek.close();
    const stored = track(await startTestApp({ file }));
    await eventually(() => rx.received.length === 2, 'the delivery after restart');
    assert.equal(rx.received[1]!.headers['x-event-id'], event.id);
    await eventually(async () => (await deliveries(stored, hook))[0]?.status === 'delivered', 'delivered after restart');
    assert.equal((await deliveries(stored, hook))[0]!.attempts, 1, 'the interrupted attempt was not counted');
  });
});
