// Two nodes on one database file: each opens only its printers (a printer created for the other node is opened there),
// and a job queued on node A prints on node B's fitting printer, started exactly once.
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
});
