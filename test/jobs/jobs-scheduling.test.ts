// The scheduler on live virtual printers over HTTP: priority order, copies spread across printers, the bed-clear gate
// and clear-bed G-code, material and nozzle matching with waiting reasons, the forecast, and the power budget.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fastSim, longJobSim, startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { createJob, gcode, getJob, longGcode, setOrg, untilJob, untilStatus } from './jobs-harness.js';


describe('scheduling on live printers', () => {
  let app: PrintersApp;
  before(async () => {
    app = await startPrintersApp();
  });
  after(() => app.close());

  it('bed-clear gate: without auto_start a printer waits for "ready"; the queue then runs urgent first, oldest first', async () => {
    await setOrg(app, { auto_start: false });
    const p = await app.create({ name: 'gate', connection_url: fastSim('sched-gate'), group: 'gate' });
    await app.untilStatus(p.id, 'idle');
    const first = await createJob(app, gcode({ tag: 'first' }), { group: 'gate' });
    await untilStatus(app, first.id, 'completed');
    await app.until('printer not ready', async () => (await app.get(p.id)).ready === false);

    // The test clock stands still unless moved: a second between creates makes "oldest first" observable.
    const tick = () => app.t.clock.advance(1000);
    const low = await createJob(app, gcode({ tag: 'low' }), { group: 'gate', priority: 'low' });
    tick();
    const normal1 = await createJob(app, gcode({ tag: 'n1' }), { group: 'gate' });
    tick();
    const normal2 = await createJob(app, gcode({ tag: 'n2' }), { group: 'gate' });
    tick();
    const urgent = await createJob(app, gcode({ tag: 'urgent' }), { group: 'gate', priority: 'urgent' });
    for (const j of [low, normal1, normal2, urgent]) {
      assert.equal((await untilJob(app, j.id, (x) => x.waiting_reason !== null, 'a reason')).waiting_reason, 'printers_not_ready');
    }
    const listed = await app.call('GET', '/v1/jobs?group=gate&status=queued&sort=-priority,created_at&fields=id');
    assert.deepEqual(listed.body.data.map((j: { id: string }) => j.id), [urgent.id, normal1.id, normal2.id, low.id]);

    // Clear the bed once per job and record the order in which they ran.
    const order: string[] = [];
    for (let i = 0; i < 4; i++) {
      tick();
      const ready = await app.call('POST', `/v1/printers/${p.id}/actions`, { action: 'ready' });
      assert.equal(ready.status, 202, JSON.stringify(ready.body));
      await app.until('a job to finish', async () => {
        const done = await app.call('GET', '/v1/jobs?group=gate&status=completed&sort=completed_at&per_page=10&fields=id');
        return done.body.data.length === order.length + 2;
      });
      const done = await app.call('GET', '/v1/jobs?group=gate&status=completed&sort=started_at&per_page=10&fields=id');
      order.push(done.body.data.at(-1).id);
    }
    assert.deepEqual(order, [urgent.id, normal1.id, normal2.id, low.id]);
    await setOrg(app, { auto_start: true });
  });

  it('copies spread across every fitting printer at once, as one batch', async () => {
    const printers = [];
    for (const n of ['c1', 'c2', 'c3']) printers.push(await app.create({ name: n, connection_url: longJobSim(`sched-${n}`), group: 'copies' }));
    for (const p of printers) await app.untilStatus(p.id, 'idle');
    const job = await createJob(app, longGcode(1500), { group: 'copies', copies: '3', name: 'plate' });
    assert.equal(job.job_ids.length, 3);
    assert.match(job.batch_id ?? '', /^bat_/);
    const running = await Promise.all(job.job_ids.map((id) => untilStatus(app, id, 'printing')));
    assert.deepEqual(new Set(running.map((j) => j.printer_id)), new Set(printers.map((p) => p.id)));
    assert.deepEqual(running.map((j) => j.name).sort(), ['plate', 'plate', 'plate']);
    const batch = await app.call('GET', `/v1/jobs?batch_id=${job.batch_id}&fields=id,status`);
    assert.equal(batch.body.pagination.total, 3);
    for (const id of job.job_ids) assert.equal((await app.call('DELETE', `/v1/jobs/${id}`)).body.status, 'cancelled');
    for (const p of printers) await app.untilStatus(p.id, 'idle');
  });

  it('material and nozzle: a job waits with the reason, and starts once a printer is changed to fit', async () => {
    const p = await app.create({ name: 'mat', connection_url: fastSim('sched-mat'), group: 'mat', material_type: 'PLA', nozzle_diameter: 0.4 });
    await app.untilStatus(p.id, 'idle');
    const petg = await createJob(app, gcode({ type: 'PETG' }), { group: 'mat' });
    assert.equal((await untilJob(app, petg.id, (j) => j.waiting_reason !== null, 'a reason')).waiting_reason, 'no_printer_with_material');
    const wide = await createJob(app, gcode({ type: 'PLA', nozzle: 0.6 }), { group: 'mat' });
    assert.equal((await untilJob(app, wide.id, (j) => j.waiting_reason !== null, 'a reason')).waiting_reason, 'nozzle_mismatch');

    // The forecast says what cannot be placed, in words.
    const fc = await app.call('GET', '/v1/queue/forecast');
    assert.equal(fc.status, 200);
    const unplaced = new Map(fc.body.unplaced.map((u: { job_id: string; reason: string }) => [u.job_id, u.reason]));
    assert.equal(unplaced.get(petg.id), 'no_printer_with_material');
    assert.equal(unplaced.get(wide.id), 'nozzle_mismatch');
    const named = fc.body.unplaced.find((u: { job_id: string }) => u.job_id === petg.id);
    assert.equal(named.job_name, petg.name, 'unplaced jobs carry their name, as entries do');

    const swap = await app.call('PATCH', `/v1/printers/${p.id}`, { material_type: 'PETG' });
    assert.equal(swap.status, 200);
    await untilStatus(app, petg.id, 'completed');
    await app.call('PATCH', `/v1/printers/${p.id}`, { material_type: 'PLA', nozzle_diameter: 0.6 });
    await untilStatus(app, wide.id, 'completed');
  });

  it('clear-bed G-code: the printer pushes the part off by itself once the bed is cool, and prints on', async () => {
    await setOrg(app, { auto_start: false });
    const p = await app.create({
      name: 'belt',
      connection_url: fastSim('sched-belt'),
      group: 'belt',
      clear_bed_gcode: 'G28 X ; park\nG1 Y200 F3000',
      clear_bed_temperature: 45,
    });
    await app.untilStatus(p.id, 'idle');
    const sent: string[] = [];
    app.t.deps.sessions.require(p.id).onConsole((e) => {
      if (e.direction === 'sent' && /^G28 X|^G1 Y200/.test(e.text)) sent.push(e.text);
    });
    const a = await createJob(app, gcode({ tag: 'a' }), { group: 'belt' });
    const b = await createJob(app, gcode({ tag: 'b' }), { group: 'belt' });
    await untilStatus(app, a.id, 'completed');
    await untilStatus(app, b.id, 'completed');
    // After each print the part was pushed off (comments stripped), and the printer is ready for the next one.
    await app.until('the second push-off', () => sent.length === 4);
    assert.deepEqual(sent, ['G28 X', 'G1 Y200 F3000', 'G28 X', 'G1 Y200 F3000']);
    await app.until('ready after the push-off', async () => (await app.get(p.id)).ready);
    await setOrg(app, { auto_start: true });
  });

  it('pinned jobs wait for their printer; the forecast lines the queue up behind the running job', async () => {
    const p = await app.create({ name: 'pin', connection_url: longJobSim('sched-pin') });
    await app.untilStatus(p.id, 'idle');
    const running = await createJob(app, longGcode(1500), { printer_id: p.id });
    await untilStatus(app, running.id, 'printing');
    const next = await createJob(app, gcode({ minutes: 30 }), { printer_id: p.id });
    assert.equal((await untilJob(app, next.id, (j) => j.waiting_reason !== null, 'a reason')).waiting_reason, 'pinned_printer_busy');
    const fc = await app.call('GET', '/v1/queue/forecast');
    const entry = fc.body.entries.find((e: { job_id: string }) => e.job_id === next.id);
    assert.ok(entry, JSON.stringify(fc.body));
    assert.equal(entry.printer_id, p.id);
    assert.equal(Date.parse(entry.end_at) - Date.parse(entry.start_at), 30 * 60 * 1000);
    assert.ok(Date.parse(entry.start_at) > Date.parse(fc.body.generated_at));
    await app.call('DELETE', `/v1/jobs/${next.id}`);
    await app.call('DELETE', `/v1/jobs/${running.id}`);
    assert.equal((await getJob(app, running.id)).status, 'cancelled');
  });
});

describe('power budget on live printers', () => {
  let app: PrintersApp;
  before(async () => {
    app = await startPrintersApp();
  });
  after(() => app.close());

  it('staggers heat-ups: the second printer starts only once the first has reached its temperatures', async () => {
    await setOrg(app, { power_budget_watts: 300 });
    const heated = (tag: string): string =>
      [`; ${tag}`, 'M140 S50', 'M104 S180', 'M190 S50', 'M109 S180', 'G90', ...Array.from({ length: 400 }, (_, i) => `G1 X${10 + (i % 2)} Y10 F600`)].join('\n') + '\n';
    const a = await app.create({ name: 'heat a', connection_url: longJobSim('power-a'), group: 'power', heatup_watts: 200 });
    const b = await app.create({ name: 'heat b', connection_url: longJobSim('power-b'), group: 'power', heatup_watts: 200 });
    await app.untilStatus(a.id, 'idle');
    await app.untilStatus(b.id, 'idle');
    const first = await createJob(app, heated('first'), { group: 'power' });
    const second = await createJob(app, heated('second'), { group: 'power' });
    const started = await untilStatus(app, first.id, 'printing');
    assert.equal((await untilJob(app, second.id, (j) => j.waiting_reason !== null, 'a reason')).waiting_reason, 'power_budget');
    // When the second starts, the first printer's heaters have reached their targets.
    await untilStatus(app, second.id, 'printing', 60_000);
    const t = (await app.get(started.printer_id!)).temperatures;
    assert.ok(t.hotend! >= 180 - 3 && t.bed! >= 50 - 3, JSON.stringify(t));
    await setOrg(app, { power_budget_watts: null });
    for (const j of [first, second]) await app.call('DELETE', `/v1/jobs/${j.id}`);
  });
});
