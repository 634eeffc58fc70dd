// --workers: printer sessions in worker threads. A worker that crashes takes only its own printers down (offline,
// host_error; their jobs fail with host_error), is restarted, and its printers reconnect; the other worker's printer
// prints on untouched.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createJob, longGcode, untilJob, untilStatus } from '../jobs/jobs-harness.js';
import { longJobSim, startPrintersApp, type PrintersApp } from './printers-api-harness.js';
import type { LinkWorkerPool } from '../../src/printers/workers/link-worker-pool.js';
import { dbRow } from '../helpers/test-database.js';

describe('printer sessions in two worker threads', () => {
  let app: PrintersApp;
  let pool: LinkWorkerPool;
  before(async () => {
    app = await startPrintersApp({ workers: 2 });
    pool = app.t.deps.printers.deps.workers!;
  });
  after(() => app.close());

  it('a crashed worker fails only its own job (host_error), restarts, and its printer reconnects', async () => {
    const a = await app.create({ name: 'left', connection_url: longJobSim('left') });
    const b = await app.create({ name: 'right', connection_url: longJobSim('right') });
    assert.notEqual(pool.workerOf(a.id), pool.workerOf(b.id), 'the two printers share one worker');
    await app.untilStatus(a.id, 'idle');
    await app.untilStatus(b.id, 'idle');

    const jobA = await createJob(app, longGcode(3000, ['; left']), { printer_id: a.id });
    const jobB = await createJob(app, longGcode(3000, ['; right']), { printer_id: b.id });
    await untilJob(app, jobA.id, (j) => j.status === 'printing' && (j.progress ?? 0) > 0, 'to print');
    await untilJob(app, jobB.id, (j) => j.status === 'printing' && (j.progress ?? 0) > 0, 'to print');

    const seen = app.record('printer.offline', 'printer.online', 'job.failed');
    // What the API shows at the moment the printer is announced offline.
    let reasonAtOffline: unknown = 'not seen';
    // The stored row is read before (the listener is synchronous); the offline reason comes from the live session.
    const rowA = await rowOf(a.id);
    const off = app.t.deps.bus.on('printer.offline', (p) => {
      if (p.printer_id === a.id) reasonAtOffline = app.t.deps.printers.record({ ...rowA }).offline_reason;
    });
    pool.crashWorkerOf(a.id);

    const failed = await untilStatus(app, jobA.id, 'failed');
    off();
    assert.equal(failed.error?.code, 'host_error');
    assert.equal(reasonAtOffline, 'host_error');
    // The worker comes back and the printer with it.
    await app.untilStatus(a.id, 'idle', 20_000);
    const back = await app.get(a.id);
    assert.equal(back.offline_reason, null);
    assert.equal(back.ready, false, 'a part is on the bed: the job had printed lines');

    // The other worker's printer never noticed.
    assert.deepEqual(seen.filter((e) => e.printer_id === b.id), []);
    const other = await untilJob(app, jobB.id, (j) => j.status === 'printing', 'to still print');
    assert.equal(other.error, null);
    assert.deepEqual(
      seen.filter((e) => e.printer_id === a.id).map((e) => e.name),
      ['job.failed', 'printer.offline', 'printer.online'],
    );
    const cancel = await app.call('DELETE', `/v1/jobs/${jobB.id}`);
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
    assert.equal(cancel.body.status, 'cancelled');
  });

  async function rowOf(id: string) {
    return (await dbRow<Parameters<PrintersApp['t']['deps']['printers']['record']>[0]>(app.t.handle, 'SELECT * FROM printers WHERE id = ?', id))!;
  }
});
