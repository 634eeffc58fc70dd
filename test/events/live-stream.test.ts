// GET /v1/events over real HTTP: type and scope filters, Last-Event-ID replay, heartbeats, slow-client drop, live-only telemetry.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { eventually, openStream, startReceiver, typesOf, type SseClient, type Obj } from '../webhooks/webhook-harness.js';

const open: Array<{ close(): Promise<void> | void }> = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

async function app(options: Parameters<typeof startTestApp>[0] = {}): Promise<{ t: TestApp; admin: string }> {
  const t = await startTestApp(options);
  open.push(t);
  return { t, admin: await mintTestKey(t) };
}

async function stream(t: TestApp, key: string, query = '', headers: Record<string, string> = {}): Promise<SseClient> {
  const client = await openStream(t.baseUrl, `/v1/events${query}`, { ...bearer(key), ...headers });
  open.push(client);
  return client;
}

describe('live event stream', () => {
  it('filters by types= and by what the key may read', async () => {
    const { t, admin } = await app();
    const printersOnly = await mintTestKey(t, ['printers:read']);
    const jobsStream = await stream(t, admin, '?types=job.*,material.empty');
    const printerStream = await stream(t, printersOnly);
    assert.equal(jobsStream.status, 200);
    await t.deps.events.recordNow('job.created', { id: 'job_1' });
    await t.deps.events.recordNow('printer.online', { id: 'prt_1' });
    await t.deps.events.recordNow('material.low', { id: 'mat_1' });
    await t.deps.events.recordNow('material.empty', { id: 'mat_1' });
    await eventually(() => jobsStream.messages.length === 2, 'two events on the filtered stream');
    assert.deepEqual(typesOf(jobsStream), ['job.created', 'material.empty']);
    await eventually(() => printerStream.messages.length === 1, 'the printer event');
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(typesOf(printerStream), ['printer.online'], 'a printers:read key sees no job or material events');
    const msg = jobsStream.messages[0]!;
    const event = JSON.parse(msg.data as string);
    assert.equal(msg.id, event.id);
    assert.match(event.id, /^evt_/);
    assert.deepEqual(event.data, { object: { id: 'job_1' } });
  });

  it('a rolled-back event never reaches the stream', async () => {
    const { t, admin } = await app();
    const s = await stream(t, admin);
    await t.deps.db
      .transaction()
      .execute(async (trx) => {
        await t.deps.events.record(trx, 'job.failed', { id: 'job_gone' });
        throw new Error('rollback');
      })
      .catch(() => undefined);
    await t.deps.events.recordNow('job.completed', { id: 'job_kept' });
    await eventually(() => s.messages.length >= 1, 'the committed event');
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(typesOf(s), ['job.completed']);
  });

  it('a client resumes after a dropped connection with Last-Event-ID: nothing missing, nothing twice', async () => {
    const { t, admin } = await app();
    const recorded: string[] = [];
    const job = async (type: 'job.created' | 'job.started' | 'job.completed', id: string) => recorded.push((await t.deps.events.recordNow(type, { id })).id);
    const before = await stream(t, admin, '?types=job.*');
    await job('job.created', 'job_1');
    await job('job.started', 'job_1');
    await eventually(() => before.messages.length === 2, 'the first two events live');
    before.close();
    await eventually(() => t.deps.events.stream.size === 0, 'the server to see the dropped connection');

    // Recorded while nobody listens, one of them filtered out.
    await job('job.completed', 'job_1');
    await t.deps.events.recordNow('printer.offline', { id: 'prt_1' });
    await job('job.created', 'job_2');
    const after = await stream(t, admin, '?types=job.*', { 'Last-Event-ID': before.messages.at(-1)!.id as string });
    await job('job.started', 'job_2');
    await job('job.completed', 'job_2');
    // The stream keeps log order, so once the last event is in, a repeat or a gap would already show.
    await eventually(() => after.messages.at(-1)?.id === recorded.at(-1), 'the missed events, then the live ones');
    const seen = [...before.messages, ...after.messages].map((m) => m.id);
    assert.deepEqual(seen, recorded, 'every job event once, in order');
    assert.deepEqual(typesOf(after), ['job.completed', 'job.created', 'job.started', 'job.completed']);

    const unknown = await stream(t, admin, '?types=job.*&last_event_id=evt_pruned');
    await eventually(() => unknown.messages.length === 6, 'a replay of the whole retained log');
    assert.match(unknown.raw(), /not in the retained log/);
  });

  it('replays a log larger than the send buffer to a client that reads, without dropping it', async () => {
    const { t, admin } = await app({ events: { sse: { maxBufferedBytes: 64 * 1024 } } });
    const padding = 'p'.repeat(1024);
    const first = await t.deps.events.recordNow('job.created', { id: 'job_0', padding });
    await t.deps.db.transaction().execute(async (trx) => {
      for (let i = 1; i < 1500; i++) await t.deps.events.record(trx, 'job.created', { id: `job_${i}`, padding });
    });
    const s = await stream(t, admin, '', { 'Last-Event-ID': first.id });
    await eventually(() => s.messages.length === 1499, 'the whole replay', 20_000);
    assert.equal(JSON.parse(s.messages.at(-1)!.data as string).data.object.id, 'job_1499');
    assert.ok(!s.messages.some((m) => m.event === 'end'));
  });

  it('sends heartbeat comments and ends streams on shutdown', async () => {
    const { t, admin } = await app({ events: { sse: { heartbeatMs: 30 } } });
    const s = await stream(t, admin);
    await eventually(() => s.raw().includes(': heartbeat'), 'a heartbeat');
    await t.deps.events.stop();
    await s.ended;
    assert.equal(s.messages.at(-1)?.event, 'end');
    assert.match(s.messages.at(-1)?.data ?? '', /shutting_down/);
  });

  it('ends the stream of a key revoked meanwhile at the next heartbeat', async () => {
    const { t, admin } = await app({ events: { sse: { heartbeatMs: 30 } } });
    const other = await mintTestKey(t, ['jobs:read']);
    const s = await stream(t, other);
    const keys = (await (await t.request('/v1/api-keys', { headers: bearer(admin) })).json() as Obj).keys as Obj[];
    const id = keys.find((k) => k.scopes.includes('jobs:read'))!.id;
    assert.equal((await t.request(`/v1/api-keys/${id}`, { method: 'DELETE', headers: bearer(admin) })).status, 200);
    await s.ended;
    assert.equal(s.messages.at(-1)?.event, 'end');
    assert.match(s.messages.at(-1)?.data ?? '', /unauthorized/);
  });

  it('refuses unknown types with a 400', async () => {
    const { t, admin } = await app();
    const res = await t.request('/v1/events?types=job.*,job.exploded', { headers: bearer(admin) });
    assert.equal(res.status, 400);
    assert.match((await res.json() as Obj).error.message, /types: unknown event type "job.exploded"/);
  });

  it('drops a client that does not read with a clear end-of-stream', async () => {
    const { t, admin } = await app({ events: { sse: { maxBufferedBytes: 64 * 1024 } } });
    const s = await stream(t, admin, '?types=printer.telemetry');
    s.pause();
    const padding = 'x'.repeat(16 * 1024);
    let sent = 0;
    // Kernel buffers absorb a few MB first; the server must give up once its own buffer passes the limit.
    while (t.deps.events.stream.size > 0 && sent < 20_000) {
      t.deps.events.telemetry(`prt_${sent++}`, { progress: 1, padding });
      if (sent % 100 === 0) await new Promise((r) => setImmediate(r));
    }
    assert.equal(t.deps.events.stream.size, 0, 'the slow subscriber was dropped');
    s.resume();
    await s.ended;
    const last = s.messages.at(-1)!;
    assert.equal(last.event, 'end');
    assert.match(last.data ?? '', /slow_client/);
  });

  it('streams printer.telemetry at most once a second per printer, never stores it nor sends it to webhooks', async () => {
    const { t, admin } = await app();
    const rx = await startReceiver();
    open.push(rx);
    await t.request('/v1/webhooks', { method: 'POST', headers: bearer(admin, true), body: JSON.stringify({ url: rx.url, events: ['*'] }) });
    const jobsOnly = await mintTestKey(t, ['jobs:read']);
    const hidden = await stream(t, jobsOnly);
    const s = await stream(t, admin, '?types=printer.telemetry');
    const sample = { temperatures: { hotend: 214.8, hotend_target: 215, bed: 60, bed_target: 60 }, progress: 42.5, job_id: 'job_1' };
    assert.equal(t.deps.events.telemetry('prt_1', sample), true);
    assert.equal(t.deps.events.telemetry('prt_1', sample), false, 'throttled');
    t.clock.advance(1000);
    assert.equal(t.deps.events.telemetry('prt_1', { ...sample, progress: 43 }), true);
    await eventually(() => s.messages.length === 2, 'two telemetry messages');
    const event = JSON.parse(s.messages[0]!.data as string);
    assert.equal(event.type, 'printer.telemetry');
    assert.deepEqual(event.data.object, { printer_id: 'prt_1', ...sample });
    assert.equal(s.messages[0]!.id, undefined, 'live-only: no id to resume from');
    assert.equal((await t.deps.db.selectFrom('events').selectAll().execute()).length, 0);
    assert.equal((await t.deps.db.selectFrom('webhook_deliveries').selectAll().execute()).length, 0);
    assert.equal(rx.received.length, 0);
    assert.equal(hidden.messages.length, 0, 'a key without printers:read gets no telemetry');
  });

  it('prunes events past retention, keeping those a delivery still waits for', async () => {
    const { t, admin } = await app({ events: { retentionMs: 1000 }, webhooks: { maxInFlight: 0 } });
    const rx = await startReceiver();
    open.push(rx);
    await t.deps.events.recordNow('job.created', { id: 'job_old' });
    await t.request('/v1/webhooks', { method: 'POST', headers: bearer(admin, true), body: JSON.stringify({ url: rx.url, events: ['job.*'] }) });
    await t.deps.events.recordNow('job.started', { id: 'job_pending' });
    t.clock.advance(2000);
    await t.deps.events.recordNow('job.completed', { id: 'job_new' });
    assert.equal(await t.deps.events.prune(), 1);
    const left = await t.deps.db.selectFrom('events').select('type').orderBy('seq').execute();
    assert.deepEqual(left.map((r) => r.type), ['job.started', 'job.completed']);
  });
});
