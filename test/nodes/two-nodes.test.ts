// Two nodes on one database file: each opens only its printers (a printer created for the other node is opened there),
// a job queued on node A prints on node B's fitting printer, started exactly once; a printer of B changed, removed or
// its job cancelled through A is followed by B.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createJob, gcode, untilStatus } from '../jobs/jobs-harness.js';
import { startFarm, storedJobEvents } from './nodes-harness.js';

const farm = startFarm();
after(() => farm.close());

describe('two nodes on one database', () => {
  it('each node opens only its printers; a job queued on A prints once on B, the only node with a fitting printer', async () => {
    const a = await farm.node('a', { heartbeatMs: 3_600_000 });
    const b = await farm.node('b', { heartbeatMs: 3_600_000 });
    const pa = await a.create({ name: 'pla', connection_url: 'sim://two-a?speed=max', material_type: 'PLA' });
    // Created through A for B: B opens it when the signal reaches it; A never does.
    const pb = await a.create({ name: 'petg', connection_url: 'sim://two-b?speed=max', material_type: 'PETG', node_id: b.nodeId });
    assert.equal(pb.node_id, b.nodeId);
    await b.untilStatus(pb.id, 'idle');
    await a.untilStatus(pa.id, 'idle');
    assert.deepEqual(a.t.deps.sessions.list().map((s) => s.printerId), [pa.id]);
    assert.deepEqual(b.t.deps.sessions.list().map((s) => s.printerId), [pb.id]);

    const jobs = await Promise.all([1, 2, 3].map((i) => createJob(a, gcode({ moves: 30, type: 'PETG', tag: `petg ${i}` }))));
    for (const job of jobs) {
      const done = await untilStatus(b, job.id, 'completed', 30_000);
      assert.equal(done.printer_id, pb.id, 'printed on the fitting printer of the other node');
      assert.deepEqual(await storedJobEvents(a, job.id), ['job.created', 'job.started', 'job.completed'], 'started exactly once');
    }
    // A job pinned to B's printer and queued on A is B's too; A's scheduler neither starts it nor gives it a reason.
    const pinned = await createJob(a, gcode({ moves: 10, type: 'PETG' }), { printer_id: pb.id });
    await untilStatus(b, pinned.id, 'completed', 30_000);
    assert.deepEqual(await storedJobEvents(b, pinned.id), ['job.created', 'job.started', 'job.completed']);
  });

  it("a cancel, change or removal of another node's printer made on A is followed by its owner B; busy, removal is refused", async () => {
    const a = await farm.node('a2', { heartbeatMs: 3_600_000 });
    const b = await farm.node('b2', { heartbeatMs: 3_600_000 });
    const p = await a.create({ name: 'far', connection_url: 'sim://far-1?speed=1', node_id: b.nodeId });
    await b.untilStatus(p.id, 'idle');
    const first = b.t.deps.sessions.get(p.id);

    const busy = await createJob(a, gcode({ moves: 2000 }), { printer_id: p.id });
    await untilStatus(b, busy.id, 'printing');
    const refused = await a.call('DELETE', `/v1/printers/${p.id}`);
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'printer_busy', 'the job rows say it prints, though A holds no session');
    assert.equal((await a.call('DELETE', `/v1/jobs/${busy.id}`)).status, 200);
    await untilStatus(b, busy.id, 'cancelled');
    await b.until('B stopped the print cancelled on A', async () => b.t.deps.sessions.get(p.id)?.currentStatus === 'idle');

    const moved = await a.call('PATCH', `/v1/printers/${p.id}`, { connection_url: 'sim://far-2?speed=max' });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    await b.until('B re-linked the printer', async () => {
      const now = b.t.deps.sessions.get(p.id);
      return now !== undefined && now !== first && now.currentStatus === 'idle';
    });
    assert.equal(a.t.deps.sessions.has(p.id), false, 'A never opens it');

    assert.equal((await a.call('DELETE', `/v1/printers/${p.id}`)).status, 204);
    await b.until('B closed the removed printer', () => !b.t.deps.sessions.has(p.id));
  });
});
