// A printing printer over HTTP (sessions on the main thread and in worker threads): live job fields, the console safe list, busy refusals, pause/resume/cancel, ready after a print, emergency stop.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { longJobSim, startPrintersApp, writeLongJob, type PrintersApp } from './printers-api-harness.js';
import { dbRow, dbRows } from '../helpers/test-database.js';

// The sessions on the main thread and in worker threads (--workers 2): the API must answer alike.
for (const workers of [0, 2]) describe(`a printing printer (--workers ${workers})`, () => {
  let app: PrintersApp;
  let dir: string;
  let file: string;
  before(async () => {
    app = await startPrintersApp({ workers });
    dir = await mkdtemp(path.join(tmpdir(), 'pf-printers-print-'));
    file = path.join(dir, 'long.gcode');
    await writeLongJob(file);
  });
  after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  const action = (id: string, name: string) => app.call('POST', `/v1/printers/${id}/actions`, { action: name });
  const commands = (id: string, list: string[]) => app.call('POST', `/v1/printers/${id}/commands`, { commands: list });
  const rowReady = async (id: string) => (await dbRow<{ ready: number }>(app.t.handle, 'SELECT ready FROM printers WHERE id = ?', id))!.ready;

  /** A connected printer with a job started directly on its session (the job engine's part is not needed here). */
  async function printing(name: string, jobId: string): Promise<string> {
    const p = await app.create({ name, connection_url: longJobSim(name) });
    await app.untilStatus(p.id, 'idle');
    await app.t.deps.sessions.require(p.id).startJob({ jobId, filePath: file });
    await app.until(`${jobId} makes progress`, async () => ((await app.get(p.id)).progress ?? 0) > 0);
    return p.id;
  }

  it('shows the job live and refuses what would disturb it', async () => {
    const id = await printing('busy', 'job_busy1');
    const rec = await app.get(id);
    assert.equal(rec.status, 'printing');
    assert.equal(rec.current_job, 'job_busy1');
    assert.ok(rec.progress! > 0 && rec.progress! < 100, String(rec.progress));

    const safe = await commands(id, ['M105', 'M114', 'M117 printing from the API', 'M220 S100', 'm221 s100', 'M0105']);
    assert.equal(safe.status, 200, JSON.stringify(safe.body));
    assert.ok(safe.body.results.every((r: { ok: boolean }) => r.ok));
    const unsafe = await commands(id, ['M105', 'G28 X']);
    assert.equal(unsafe.status, 409);
    assert.equal(unsafe.body.error.code, 'printer_busy');
    assert.equal(unsafe.body.error.message, 'commands[1]: G28 is not allowed while a job is printing');
    assert.match(unsafe.body.error.details, /M105, M114/);

    for (const name of ['home', 'ready', 'disconnect']) {
      const res = await action(id, name);
      assert.equal(res.status, 409, name);
      assert.equal(res.body.error.code, 'printer_busy', name);
    }
    const resume = await action(id, 'resume');
    assert.equal(resume.status, 409);
    assert.equal(resume.body.error.code, 'invalid_state');
    const cool = await action(id, 'cooldown');
    assert.equal(cool.status, 409);
    assert.equal(cool.body.error.code, 'printer_busy');

    const del = await app.call('DELETE', `/v1/printers/${id}`);
    assert.equal(del.status, 409);
    assert.equal(del.body.error.code, 'printer_busy');
    const move = await app.call('PATCH', `/v1/printers/${id}`, { connection_url: longJobSim('elsewhere') });
    assert.equal(move.status, 409);
    assert.equal(move.body.error.code, 'printer_busy');
    const rename = await app.call('PATCH', `/v1/printers/${id}`, { name: 'busy but renamed', material_color: 'red' });
    assert.equal(rename.status, 200);
    assert.equal(rename.body.status, 'printing');
    const filtered = await app.call('GET', '/v1/printers?status=printing&fields=id,current_job');
    assert.deepEqual(filtered.body.data, [{ id, current_job: 'job_busy1' }]);

    const cancel = await action(id, 'cancel');
    assert.equal(cancel.status, 202);
    assert.equal(cancel.body.status, 'idle');
    assert.equal(cancel.body.current_job, null);
    assert.equal((await app.call('DELETE', `/v1/printers/${id}`)).status, 204, 'deletable once idle');
  });

  it('pause, resume, cancel; afterwards the bed must be cleared (stored), and action ready clears it', async () => {
    const id = await printing('pauser', 'job_pause1');
    const paused = new Promise<void>((resolve) => {
      const off = app.t.deps.bus.on('job.paused', (p) => p.printer_id === id && (off(), resolve()));
    });
    const pause = await action(id, 'pause');
    assert.equal(pause.status, 202);
    assert.ok(['printing', 'paused'].includes(pause.body.status), pause.body.status);
    await paused;
    assert.equal((await app.get(id)).status, 'paused');
    const again = await action(id, 'pause');
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'invalid_state');
    assert.equal((await commands(id, ['M105'])).status, 200, 'safe commands pass while paused');
    assert.equal((await commands(id, ['G1 X0'])).status, 409);
    assert.equal((await action(id, 'home')).body.error.code, 'printer_busy');

    const resume = await action(id, 'resume');
    assert.equal(resume.status, 202);
    await app.untilStatus(id, 'printing');

    const cancel = await action(id, 'cancel');
    assert.equal(cancel.status, 202);
    assert.equal(cancel.body.status, 'idle');
    assert.equal(cancel.body.ready, false, 'something was printed: the bed needs clearing');
    await app.until('ready=0 stored', async () => (await rowReady(id)) === 0);

    const ready = await action(id, 'ready');
    assert.equal(ready.status, 202);
    assert.equal(ready.body.ready, true);
    assert.equal(await rowReady(id), 1);
    // The session agrees: a new job may start.
    const job = await app.t.deps.sessions.require(id).startJob({ jobId: 'job_pause2', filePath: file });
    assert.equal(job.id, 'job_pause2');
    assert.equal((await action(id, 'cancel')).status, 202);
  });

  it('emergency_stop while printing fails the job and leaves the printer in error', async () => {
    const id = await printing('stopper', 'job_stop1');
    const failed = new Promise<string>((resolve) => {
      const off = app.t.deps.bus.on('job.failed', (p) => p.printer_id === id && (off(), resolve(p.error?.code ?? '')));
    });
    const stop = await action(id, 'emergency_stop');
    assert.equal(stop.status, 202);
    assert.equal(stop.body.status, 'error');
    assert.equal(stop.body.current_job, null);
    assert.equal(await failed, 'emergency_stop');
    assert.equal((await action(id, 'connect')).status, 202);
    await app.untilStatus(id, 'idle');
  });
});
