// Scheduling decisions from the whole farm's view (issue 29): a job only another node's printer fits reads the same
// waiting reason and forecast on every node, and a job put back in the queue after a refused start wakes the other
// nodes at once while its own node waits for its retry (no loop of refusals); the writer of the reasons hears another
// node's printer change through its published state alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createJob, gcode, untilJob, untilStatus } from '../jobs/jobs-harness.js';
import { startFarm } from './nodes-harness.js';

/** No heartbeats during a test (each beat wakes every scheduler): only the signals under test wake a node. */
const QUIET_BEATS = 3_600_000;
/** Node ids in a known order: the online node with the smallest id writes the waiting reasons of unpinned jobs. */
const FIRST_ID = `nod_${'0'.repeat(20)}`;
const LAST_ID = `nod_${'z'.repeat(20)}`;

interface Forecast {
  entries: Array<{ job_id: string; printer_id: string; start_at: string }>;
  unplaced: Array<{ job_id: string; reason: string }>;
}

describe('the whole farm seen from any node', () => {
  it("a job only another node's busy printer fits waits printers_busy, and every node forecasts it on that printer", { timeout: 60_000 }, async (t) => {
    const farm = startFarm();
    t.after(() => farm.close());
    // A writes the shared reasons and drives no printer at all; B drives the only PETG printer, busy.
    const a = await farm.node('a', { id: FIRST_ID, heartbeatMs: QUIET_BEATS });
    const b = await farm.node('b', { id: LAST_ID, heartbeatMs: QUIET_BEATS });
    const pb = await b.create({ name: 'petg', connection_url: 'sim://farm-view-b?speed=1', material_type: 'PETG' });
    await b.untilStatus(pb.id, 'idle');
    const busy = await createJob(a, gcode({ moves: 2000, type: 'PETG', tag: 'long' }), { printer_id: pb.id });
    await untilStatus(b, busy.id, 'printing');
    // Paused, its time left stands still: both nodes can agree on it to the second (a fast simulated print's estimate
    // moves by seconds each second, more than the second the published state may lag behind).
    // (Asked again while the print is too young to pause: 409 invalid_state until its first lines are under way.)
    await b.until('the print paused', async () => (await b.call('POST', `/v1/printers/${pb.id}/actions`, { action: 'pause' })).status === 202, 10_000);
    await a.until('A sees B\'s printer paused', async () => (await a.get(pb.id)).status === 'paused', 10_000);

    // What B's printer prints, as the node list on A shows it.
    const listed = (await a.call('GET', '/v1/nodes')).body.data as Array<{ id: string; printers: Array<{ id: string; job: unknown }> }>;
    const shown = listed.find((n) => n.id === b.nodeId)?.printers.find((p) => p.id === pb.id)?.job as { id: string; name: string } | null;
    assert.deepEqual([shown?.id, shown?.name], [busy.id, busy.name], `A's node list says what B's printer prints: ${JSON.stringify(listed)}`);

    const job = await createJob(a, gcode({ moves: 10, type: 'PETG', tag: 'waits' }));
    const waiting = await untilJob(a, job.id, (j) => j.waiting_reason !== null, 'to get a waiting reason', 10_000);
    assert.equal(waiting.waiting_reason, 'printers_busy', 'A names the busy printer of B, not "no printer online"');
    assert.equal((await untilJob(b, job.id, () => true, 'read on B')).waiting_reason, 'printers_busy');

    const forecastOf = async (n: typeof a): Promise<Forecast> => (await n.call('GET', '/v1/queue/forecast')).body as Forecast;
    let forecasts: Forecast[] = [];
    await a.until('A and B to forecast the job at the same time', async () => {
      forecasts = await Promise.all([a, b].map(forecastOf));
      return forecasts[0]!.entries[0]?.start_at !== undefined && forecasts[0]!.entries[0]?.start_at === forecasts[1]!.entries[0]?.start_at;
    }, 10_000).catch(() => undefined);
    for (const [i, f] of forecasts.entries()) {
      const name = i === 0 ? 'A' : 'B';
      assert.deepEqual(f.unplaced, [], `${name}: nothing unplaced: ${JSON.stringify(f)}`);
      assert.deepEqual(f.entries.map((e) => [e.job_id, e.printer_id]), [[job.id, pb.id]], `${name} plans the job on B's printer`);
    }
    assert.equal(forecasts[0]!.entries[0]!.start_at, forecasts[1]!.entries[0]!.start_at, 'both nodes expect it at the same time');

    // The forecast counts every node's printers and jobs: a job pinned to B's printer is in A's forecast too.
    const pinned = await createJob(b, gcode({ moves: 10, type: 'PETG', tag: 'pinned' }), { printer_id: pb.id });
    const fromA = (await a.call('GET', '/v1/queue/forecast')).body as Forecast;
    assert.ok(fromA.entries.some((e) => e.job_id === pinned.id && e.printer_id === pb.id), `A forecasts B's pinned job: ${JSON.stringify(fromA)}`);
    for (const id of [job.id, pinned.id, busy.id]) assert.equal((await a.call('DELETE', `/v1/jobs/${id}`)).status, 200);
  });

  it("a job's waiting reason follows another node's printer as it comes online, though nothing else wakes the writer", { timeout: 60_000 }, async (t) => {
    const farm = startFarm();
    t.after(() => farm.close());
    const a = await farm.node('a', { id: FIRST_ID, heartbeatMs: QUIET_BEATS });
    const b = await farm.node('b', { id: LAST_ID, heartbeatMs: QUIET_BEATS });
    assert.equal((await a.call('PATCH', '/v1/organization', { auto_start: false })).status, 200);
    const pb = await b.create({ name: 'nylon', connection_url: 'sim://farm-view-online?speed=max', material_type: 'PA' });
    await b.untilStatus(pb.id, 'idle');
    assert.equal((await b.call('POST', `/v1/printers/${pb.id}/actions`, { action: 'disconnect' })).status, 202);
    await a.until('A sees B\'s printer offline', async () => (await a.get(pb.id)).status === 'offline', 10_000);
    const job = await createJob(a, gcode({ moves: 10, type: 'PA', tag: 'nylon' }));
    await untilJob(a, job.id, (j) => j.waiting_reason === 'no_printer_online', 'to wait for a printer online', 10_000);

    // Its bed still holds a part (no signal), then it connects on B: B starts nothing; A, which writes the reason,
    // hears only B's published printer state.
    await b.t.deps.db.updateTable('printers').set({ ready: 0 }).where('id', '=', pb.id).execute();
    assert.equal((await b.call('POST', `/v1/printers/${pb.id}/actions`, { action: 'connect' })).status, 202);
    await untilJob(a, job.id, (j) => j.waiting_reason === 'printers_not_ready', 'to wait for the bed to be cleared', 10_000);
    assert.equal((await a.call('DELETE', `/v1/jobs/${job.id}`)).status, 200);
  });

  it('a job put back after a refused start is started at once by another node, not offered to the refusing printer again', { timeout: 60_000 }, async (t) => {
    const farm = startFarm();
    t.after(() => farm.close());
    // The owner retries its refusing printer only after a minute: the job can start within the deadline only elsewhere.
    const owner = await farm.node('owner', { id: FIRST_ID, heartbeatMs: QUIET_BEATS, startRetryMs: 60_000 });
    const other = await farm.node('other', { id: LAST_ID, heartbeatMs: QUIET_BEATS, startRetryMs: 60_000 });
    assert.equal((await owner.call('PATCH', '/v1/organization', { auto_start: false })).status, 200);
    const refusing = await owner.create({ name: 'refusing', connection_url: 'sim://farm-view-refuses?speed=max', material_type: 'ASA' });
    const spare = await other.create({ name: 'spare', connection_url: 'sim://farm-view-spare?speed=max', material_type: 'ASA' });
    await owner.untilStatus(refusing.id, 'idle');
    await other.untilStatus(spare.id, 'idle');
    // The spare waits for its bed to be cleared when the job arrives, so the refusing printer is offered the job first.
    await other.t.deps.db.updateTable('printers').set({ ready: 0 }).where('id', '=', spare.id).execute();
    // Each node has heard of the other's printer (a first state heard wakes a scheduler) and has nothing left to do:
    // from here only the signals under test wake them.
    await owner.until('the owner hears of the spare', async () => (await owner.get(spare.id)).status === 'idle', 10_000);
    await other.until('the other node hears of the refusing printer', async () => (await other.get(refusing.id)).status === 'idle', 10_000);
    await Promise.all([owner.t.deps.scheduler.passNow(), other.t.deps.scheduler.passNow()]);

    // The refusing printer's start: the spare's bed is cleared in the database (no signal: nothing wakes the other
    // node), then the start is refused and the job goes back to the queue.
    const session = owner.t.deps.sessions.get(refusing.id)!;
    let attempts = 0;
    session.startJob = async () => {
      attempts++;
      await other.t.deps.db.updateTable('printers').set({ ready: 1 }).where('id', '=', spare.id).execute();
      throw new Error('upload refused: HTTP 507 Insufficient Storage');
    };
    // Queued through the other node: the owner hears of it once, by the signal (a job queued on the owner would wake it
    // twice, and the second pass, right after the refusal, would offer the printer the job again).
    const job = await createJob(other, gcode({ moves: 10, type: 'ASA', tag: 'refused once' }));
    const done = await untilStatus(other, job.id, 'completed', 15_000);
    assert.equal(done.printer_id, spare.id, 'printed on the other node\'s printer');
    assert.equal(attempts, 1, 'the refusing printer was not offered the job again by its own node\'s signal');
  });
});
