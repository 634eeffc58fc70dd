// queue.empty: stored once, in the transaction of the start that took the last queued job, with the queue's state.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { longJobSim, startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { createJob, untilStatus } from './jobs-harness.js';

describe('queue.empty', () => {
  let app: PrintersApp;
  before(async () => {
    app = await startPrintersApp();
  });
  after(async () => {
    await app.close();
  });

  it('is recorded when the last queued job starts, not while another still waits', async () => {
    const stored = async () =>
      (await app.t.deps.db.selectFrom('events').select('body').where('type', '=', 'queue.empty').execute()).map(
        (r) => (JSON.parse(r.body) as { data: { object: { queued: number; printing: number; last_started: { id: string } } } }).data.object,
      );
    const move = 'G90\nG1 X10 Y10 F3000\n';
    // Both wait in the queue (no printer yet); then one printer takes them one after the other.
    const first = await createJob(app, move);
    const second = await createJob(app, move);
    await app.create({ name: 'q', connection_url: longJobSim('queue-empty') });
    await untilStatus(app, second.id, 'completed', 30_000);
    await untilStatus(app, first.id, 'completed', 30_000);
    const events = await stored();
    assert.equal(events.length, 1, 'once: the first start left the second job queued');
    // Two jobs of one priority made in the same millisecond: the scheduler may take either first; the event names the other.
    const done = await Promise.all([first.id, second.id].map(async (id) => (await app.call('GET', `/v1/jobs/${id}`)).body as { id: string; status: string }));
    assert.deepEqual(done.map((j) => j.status), ['completed', 'completed']);
    assert.ok([first.id, second.id].includes(events[0]!.last_started.id), 'the job that started last');
    assert.equal(events[0]!.queued, 0);
    assert.equal(events[0]!.printing, 1, 'the job just started');
  });
});
