// A printer that refuses every job start (its storage is full): after three refusals in a row it is held with its
// message, the job waits with printer_refused saying which printer and why, and nothing is tried again until the printer
// changes or someone retries (action connect, a PATCH); a retry that goes through prints the job and forgets the count.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import { START_REFUSAL_LIMIT } from '../../src/printers/start-refusals.js';
import { fastSim, startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { createJob, gcode, getJob, refuseStarts, untilJob, untilStatus } from './jobs-harness.js';

const FULL = 'POST /api/files/local: HTTP 507 Insufficient Storage (the printer has no room for the file)';
/** Far longer than the retry interval below: a loop that was still trying would have tried several times by then. */
const QUIET_MS = 600;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a printer that refuses job starts', () => {
  let app: PrintersApp;
  before(async () => {
    // A refused start is offered again after 50 ms here (5 s in the server), so the three refusals come quickly.
    app = await startPrintersApp({ startRetryMs: 50 });
  });
  after(() => app.close());

  /** A live printer of its own group whose starts fail as a full printer's upload does, while `state.on`. */
  async function refusingPrinter(name: string) {
    const p = await app.create({ name, connection_url: fastSim(`refused-${name}`), group: name });
    await app.untilStatus(p.id, 'idle');
    return { printer: p, state: refuseStarts(app.t.deps.sessions, p.id, FULL) };
  }

  it('is held after three refusals in a row: the job says why, the printer shows it, and no start is tried again', async () => {
    const { printer, state } = await refusingPrinter('full');
    const updates = app.record('printer.updated');
    const job = await createJob(app, gcode({ tag: 'refused' }), { group: 'full' });

    const waiting = await untilJob(app, job.id, (j) => j.waiting_reason === 'printer_refused', 'to wait with printer_refused', 10_000);
    assert.equal(state.attempts, START_REFUSAL_LIMIT);
    assert.equal(waiting.status, 'queued');
    assert.equal(waiting.waiting_detail, `Printer "full" refused to start jobs: ${FULL}`);

    const held = await app.get(printer.id);
    assert.equal(held.status, 'idle');
    assert.equal(held.start_refusal?.message, FULL);
    assert.equal(held.start_refusal?.attempts, START_REFUSAL_LIMIT);
    assert.match(held.start_refusal?.since ?? '', /^\d{4}-\d\d-\d\dT/);
    assert.ok(updates.some((u) => u.printer_id === printer.id), 'printer.updated tells the dashboards');

    // Nothing loops: the retry timer, a new job, the node's heartbeat (it wakes the scheduler every few seconds: the
    // loop the issue saw) and a scheduler pass all leave the held printer alone.
    const second = await createJob(app, gcode({ tag: 'second' }), { group: 'full' });
    await untilJob(app, second.id, (j) => j.waiting_reason === 'printer_refused', 'to wait with printer_refused too', 10_000);
    for (let i = 0; i < 3; i++) await app.t.deps.nodes.tick();
    await app.t.deps.scheduler.passNow();
    await sleep(QUIET_MS);
    assert.equal(state.attempts, START_REFUSAL_LIMIT, 'no start was tried while the printer is held');
    assert.equal((await getJob(app, job.id)).waiting_reason, 'printer_refused');

    // A retry (action connect on a connected printer) offers it a job once more: refused again, it is held at once.
    const retry = await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'connect' });
    assert.equal(retry.status, 202, JSON.stringify(retry.body));
    await app.until('one more start', () => state.attempts === START_REFUSAL_LIMIT + 1, 10_000);
    await app.until('the printer held again', async () => (await app.get(printer.id)).start_refusal?.attempts === START_REFUSAL_LIMIT + 1, 10_000);
    await sleep(QUIET_MS);
    assert.equal(state.attempts, START_REFUSAL_LIMIT + 1, 'held again after the one retried start');

    // The operator freed the storage and edits the printer (any PATCH lifts the hold): both jobs print.
    state.on = false;
    const patched = await app.call('PATCH', `/v1/printers/${printer.id}`, { name: 'full (emptied)' });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.start_refusal, null);
    await untilStatus(app, job.id, 'completed');
    await app.call('POST', `/v1/printers/${printer.id}/actions`, { action: 'ready' });
    await untilStatus(app, second.id, 'completed');
    const after = await app.get(printer.id);
    assert.equal(after.start_refusal, null);
    const row = await app.t.deps.db.selectFrom('printers').select(['start_refusals', 'start_refused_message']).where('id', '=', printer.id).executeTakeFirstOrThrow();
    assert.deepEqual({ ...row, start_refusals: Number(row.start_refusals) }, { start_refusals: 0, start_refused_message: null }, 'a start that went through forgets the count');
  });

  it('a printer busy with a print of its own (or gone offline) is not held: that says nothing of our jobs', async () => {
    // PrusaLink answers 409 when someone started a print on its screen between our look and our upload.
    const p = await app.create({ name: 'busy', connection_url: fastSim('refused-busy'), group: 'busy' });
    await app.untilStatus(p.id, 'idle');
    const state = refuseStarts(app.t.deps.sessions, p.id, 'busy', () => new AppError(409, 'printer_busy', 'printer busy is printing a job of its own'));
    const job = await createJob(app, gcode({ tag: 'busy' }), { group: 'busy' });
    await app.until('more starts than the hold allows', () => state.attempts > START_REFUSAL_LIMIT + 1, 20_000);
    assert.equal((await app.get(p.id)).start_refusal, null, 'never held');
    assert.notEqual((await getJob(app, job.id)).waiting_reason, 'printer_refused');
    state.on = false;
    await untilStatus(app, job.id, 'completed');
  });

  it('a printer whose link drops and comes back is offered the job again', async () => {
    const { printer, state } = await refusingPrinter('flaky');
    const job = await createJob(app, gcode({ tag: 'flaky' }), { group: 'flaky' });
    await untilJob(app, job.id, (j) => j.waiting_reason === 'printer_refused', 'to wait with printer_refused', 10_000);
    assert.equal(state.attempts, START_REFUSAL_LIMIT);

    // The link drops and the session connects again by itself (no operator action): printer.online lifts the hold.
    const session = app.t.deps.sessions.get(printer.id)!;
    await session.disconnect();
    state.on = false;
    await session.connect();
    await untilStatus(app, job.id, 'completed');
    assert.equal(state.attempts, START_REFUSAL_LIMIT + 1);
    assert.equal((await app.get(printer.id)).start_refusal, null);
  });
});
