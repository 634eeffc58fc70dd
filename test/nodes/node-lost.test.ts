// A node that stops beating is lost: one other node marks it, fails its printing jobs with node_lost (events as usual),
// makes jobs pinned to its printers wait with node_lost; a network printer of it moves to a live node with its job,
// which completes there; a lost node that beats again is online, and its pinned jobs' node_lost wait clears.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startMoonrakerStandIn } from '../../src/simulator/moonraker/moonraker-standin.js';
import { createJob, gcode, getJob, longGcode, untilJob, untilStatus } from '../jobs/jobs-harness.js';
import type { PrintersApp } from '../printers/printers-api-harness.js';
import { startFarm, storedJobEvents } from './nodes-harness.js';

const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** A farm of its own per test: a watcher of one test would otherwise take the other's lost node. */
function newFarm(): ReturnType<typeof startFarm> {
  const farm = startFarm();
  cleanups.push(() => farm.close());
  return farm;
}

/** A node that never beats after its start (heartbeat an hour away): to the others it falls silent at once. */
const SILENT = { heartbeatMs: 3_600_000 };
/** A watching node: beats and looks every 50 ms, calls a node lost after 600 ms of silence. */
const WATCHER = { heartbeatMs: 50, lostAfterMs: 600 };

async function nodeState(app: PrintersApp, id: string): Promise<string> {
  return (await nodeRecord(app, id)).state;
}

async function nodeRecord(app: PrintersApp, id: string): Promise<{ state: string; lost_since: string | null }> {
  return (await app.call('GET', '/v1/nodes')).body.data.find((n: { id: string }) => n.id === id);
}

describe('a lost node', () => {
  it('fails its printing job with node_lost, its pinned jobs wait with node_lost, and it recovers when it beats again', async () => {
    const farm = newFarm();
    const a = await farm.node('silent', SILENT);
    const pa = await a.create({ name: 'slow', connection_url: 'sim://lost-a?speed=1' });
    await a.untilStatus(pa.id, 'idle');
    const running = await createJob(a, longGcode(3000), { printer_id: pa.id });
    await untilStatus(a, running.id, 'printing');
    const pinned = await createJob(a, gcode({ moves: 10 }), { printer_id: pa.id });
    await untilJob(a, pinned.id, (j) => j.waiting_reason === 'pinned_printer_busy', 'to wait for its printer');

    const b = await farm.node('watcher', WATCHER);
    const failed = await untilStatus(b, running.id, 'failed', 15_000);
    assert.equal(failed.error?.code, 'node_lost');
    assert.match(failed.error!.message, /stopped sending heartbeats/);
    assert.deepEqual(await storedJobEvents(b, running.id), ['job.created', 'job.started', 'job.failed'], 'job.failed goes out as for any failure');
    const lost = await nodeRecord(b, a.nodeId);
    assert.equal(lost.state, 'lost');
    const nodeLost = async () =>
      (await b.t.deps.db.selectFrom('events').select('body').where('type', '=', 'node.lost').execute()).map((r) => (JSON.parse(r.body) as { data: { object: { id: string; state: string } } }).data.object);
    await b.until('node.lost stored', async () => (await nodeLost()).length > 0);
    assert.deepEqual((await nodeLost()).map((o) => [o.id, o.state]), [[a.nodeId, 'lost']], 'one node.lost, with the node as GET /v1/nodes shows it');
    assert.ok(lost.lost_since !== null && !Number.isNaN(Date.parse(lost.lost_since)), `lost since a time: ${JSON.stringify(lost)}`);
    assert.equal(await nodeState(b, b.nodeId), 'online', 'the watcher itself carries on');
    assert.equal((await nodeRecord(b, b.nodeId)).lost_since, null);
    const waiting = await untilJob(b, pinned.id, (j) => j.waiting_reason === 'node_lost', 'to wait for the lost node');
    assert.equal(waiting.status, 'queued');
    // Still running but cut off, the lost node hears the signal: it stops the print given up on and starts nothing.
    await a.until('the lost node stopped the failed print', () => a.t.deps.sessions.get(pa.id)?.snapshot().job?.id !== running.id);
    assert.equal((await getJob(b, pinned.id)).status, 'queued', 'a lost node starts nothing until it beats again');

    // The silent node beats again: online, and the wait it caused is gone.
    await a.t.deps.nodes.tick();
    assert.deepEqual(await nodeRecord(b, a.nodeId).then((n) => [n.state, n.lost_since]), ['online', null]);
    await untilJob(b, pinned.id, (j) => j.waiting_reason !== 'node_lost', 'to lose its node_lost wait');
    assert.equal((await getJob(b, running.id)).status, 'failed', 'the failed job stays failed');
  });

  it('a network printer of a lost node is taken over by a live node, and its running job completes there', async () => {
    const s = await startMoonrakerStandIn({ apiKey: 'nodes-key', simulator: { speed: 2 } });
    cleanups.push(() => s.close());
    const farm = newFarm();
    const a = await farm.node('silent-net', SILENT);
    const p = await a.create({ name: 'klipper', connection_url: `moonraker://127.0.0.1:${s.port}`, api_key: 'nodes-key' });
    await a.untilStatus(p.id, 'idle');
    const job = await createJob(a, gcode({ moves: 400 }), { printer_id: p.id });
    await untilJob(a, job.id, (j) => j.status === 'printing' && j.progress > 5, 'to be printing', 60_000);
    // The box dies: its link to the printer goes with it (the printer prints on), and it beats no more.
    await a.t.deps.sessions.remove(p.id);

    const b = await farm.node('taker', WATCHER);
    await b.until('the printer moved to the live node', async () => (await b.get(p.id)).node_id === b.nodeId, 15_000);
    assert.ok(b.t.deps.sessions.has(p.id), 'the taker opened its connection');
    const done = await untilStatus(b, job.id, 'completed', 120_000);
    assert.equal(done.error, null);
    assert.deepEqual(await storedJobEvents(b, job.id), ['job.created', 'job.started', 'job.completed']);
  });
});
