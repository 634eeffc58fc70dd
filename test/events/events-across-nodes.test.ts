// Two apps on one PostgreSQL database, as two nodes: an event recorded or streamed live on one reaches the other's /v1/events at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pgForTests, pgSkipReason, type PgForTests } from '../helpers/pg-for-tests.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { eventually, openStream, typesOf, type SseClient } from '../webhooks/webhook-harness.js';

describe('events across nodes', { skip: pgSkipReason() }, () => {
  let pg: PgForTests;
  let db: { url: string; drop(): Promise<void> };
  const open: Array<{ close(): Promise<void> | void }> = [];
  before(async () => {
    pg = await pgForTests();
    db = await pg.createDatabase();
  });
  after(async () => {
    for (const x of open.splice(0).reverse()) await x.close();
    await db?.drop();
    await pg?.stop();
  });

  it("streams on node B what node A recorded, without waiting for B's safety poll", async () => {
    // The poll is an hour: only the signal between the nodes can bring A's event to B within the wait below.
    const events = { feedPollMs: 3_600_000 };
    const a: TestApp = await startTestApp({ databaseUrl: db.url, events });
    open.push(a);
    const b: TestApp = await startTestApp({ databaseUrl: db.url, events });
    open.push(b);
    const key = await mintTestKey(a);
    const atB: SseClient = await openStream(b.baseUrl, '/v1/events', bearer(key));
    open.push(atB);
    const atA: SseClient = await openStream(a.baseUrl, '/v1/events', bearer(key));
    open.push(atA);
    assert.equal(atB.status, 200);
    await a.deps.events.recordNow('job.created', { id: 'job_a' });
    await b.deps.events.recordNow('printer.online', { id: 'prt_b' });
    await eventually(() => atB.messages.length === 2 && atA.messages.length === 2, 'both events on both nodes', 4000);
    assert.deepEqual(typesOf(atB), ['job.created', 'printer.online']);
    assert.deepEqual(typesOf(atA), ['job.created', 'printer.online']);
    assert.deepEqual(atB.messages.map((m) => m.id), atA.messages.map((m) => m.id), 'the same ids (and order) on both nodes');

    // Live-only events of A's printers reach B's stream too, once each on each node.
    const liveTypes = '/v1/events?types=printer.telemetry,job.progress';
    const liveB = await openStream(b.baseUrl, liveTypes, bearer(key));
    open.push(liveB);
    const liveA = await openStream(a.baseUrl, liveTypes, bearer(key));
    open.push(liveA);
    assert.equal(a.deps.events.telemetry('prt_a', { progress: 0.5 }), true);
    a.deps.events.live('job.progress', { job_id: 'job_a', progress: 0.5 });
    await eventually(() => liveB.messages.length === 2, 'the live events on node B', 4000);
    await new Promise((r) => setTimeout(r, 200));
    // Live samples are independent: two of them may cross the nodes in either order.
    assert.deepEqual(typesOf(liveB).sort(), ['job.progress', 'printer.telemetry']);
    assert.deepEqual(typesOf(liveA), ['printer.telemetry', 'job.progress'], 'not streamed twice on the sending node');
    const telemetry = liveB.messages.find((m) => m.event === 'printer.telemetry')!;
    assert.equal(JSON.parse(telemetry.data!).data.object.printer_id, 'prt_a');
  });
});
