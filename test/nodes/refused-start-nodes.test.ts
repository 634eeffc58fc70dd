// Two nodes of one farm: a printer of one node that refuses job starts is held in the shared database, so the other
// node shows the hold on the printer and the waiting job; an edit of the printer on that other node lifts it, and
// the owner offers the printer the job again.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { START_REFUSAL_LIMIT } from '../../src/printers/start-refusals.js';
import { createJob, gcode, refuseStarts, untilJob, untilStatus } from '../jobs/jobs-harness.js';
import { fastSim } from '../printers/printers-api-harness.js';
import { startFarm } from './nodes-harness.js';

const FULL = 'upload refused: HTTP 507 Insufficient Storage';
const QUIET_BEATS = 3_600_000;

describe('a refusing printer on a farm of two nodes', () => {
  const farm = startFarm();
  after(() => farm.close());

  it('is shown held on the other node, and an edit there lifts the hold on its owner', async () => {
    // No heartbeats during the test (each beat wakes every scheduler): only the edit's own signal can wake the owner.
    const owner = await farm.node('owner', { startRetryMs: 50, heartbeatMs: QUIET_BEATS });
    const other = await farm.node('other', { startRetryMs: 50, heartbeatMs: QUIET_BEATS });
    const p = await owner.create({ name: 'full one', connection_url: fastSim('refused-nodes') });
    await owner.untilStatus(p.id, 'idle');
    const state = refuseStarts(owner.t.deps.sessions, p.id, FULL);

    // Created on the other node, pinned to the owner's printer: the owner tries it, three times.
    const job = await createJob(other, gcode({ tag: 'nodes' }), { printer_id: p.id });
    const waiting = await untilJob(other, job.id, (j) => j.waiting_reason === 'printer_refused', 'to wait with printer_refused', 15_000);
    assert.equal(waiting.waiting_detail, `Printer "full one" refused to start jobs: ${FULL}`);
    assert.equal(state.attempts, START_REFUSAL_LIMIT);
    const seen = (await other.get(p.id)).start_refusal;
    assert.equal(seen?.message, FULL, 'the other node reads the hold from the shared database');
    assert.equal(seen?.attempts, START_REFUSAL_LIMIT);

    // Fixed, and edited on the other node: the owner hears it and starts the job.
    state.on = false;
    const patched = await other.call('PATCH', `/v1/printers/${p.id}`, { name: 'emptied' });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    await untilStatus(other, job.id, 'completed', 15_000);
    assert.equal(state.attempts, START_REFUSAL_LIMIT + 1);
    assert.equal((await other.get(p.id)).start_refusal, null);
  });
});
