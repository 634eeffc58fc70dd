// A broker that is down when the farm starts, and one that goes away in the middle of a print (plain MQTT with a
// password): printing and the API go on, GET /v1/homeassistant says why it is not connected, and once the broker is
// back the farm reconnects by itself and publishes everything again (retained, so Home Assistant sees it).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { startPrintersApp, fastSim, longJobSim, type PrintersApp } from '../printers/printers-api-harness.js';
import { createJob, gcode, longGcode, untilJob, untilStatus } from '../jobs/jobs-harness.js';
import { brokerMissing, startBroker, Watcher, type TestBroker } from './broker-harness.js';

/** Generous for a loaded machine: a broker away must cost the API nothing near this. */
const API_DEADLINE_MS = 2000;

describe('Home Assistant publishing with the broker down', { skip: brokerMissing }, () => {
  let broker: TestBroker;
  let app: PrintersApp;
  before(async () => {
    broker = await startBroker({ tls: false, started: false });
    app = await startPrintersApp({ homeassistant: { target: broker.target, backoff: { initialMs: 100, maxMs: 400 } } });
  });
  after(async () => {
    await app?.close();
    await broker?.close();
  });

  const timedStatus = async (): Promise<any> => {
    const t0 = performance.now();
    const res = await app.call('GET', '/v1/homeassistant');
    assert.ok(performance.now() - t0 < API_DEADLINE_MS, 'the API answered within its deadline');
    assert.equal(res.status, 200);
    return res.body;
  };

  it('down at start: the farm starts and prints, the status says why; it connects and publishes once the broker is up', async () => {
    const printer = await app.create({ name: 'Early', connection_url: fastSim('haf-early') });
    await app.untilStatus(printer.id, 'idle');
    const job = await createJob(app, gcode({ moves: 200 }), { printer_id: printer.id, name: 'before the broker' });
    await untilStatus(app, job.id, 'completed');
    const down = await timedStatus();
    assert.equal(down.enabled, true);
    assert.equal(down.connected, false);
    assert.equal(down.broker, `mqtt://farm@127.0.0.1:${broker.port}`);
    assert.match(down.last_error ?? '', /ECONNREFUSED/);
    assert.ok(down.failed_attempts >= 1);
    assert.doesNotMatch(JSON.stringify(down), /p@ss/);

    await broker.start();
    const watch = new Watcher(broker);
    try {
      await watch.until('the printer state after the broker came up', (w) => w.json(`printfarm/printer/${printer.id}/state`)?.bed_waiting === 'ON');
      assert.ok(watch.last(`homeassistant/sensor/printfarm_${printer.id}/status/config`));
      const up = await timedStatus();
      assert.equal(up.connected, true);
      assert.equal(up.last_error, null);
      assert.equal(up.failed_attempts, 0);
    } finally {
      watch.close();
    }
  });

  it('lost mid-print: the print goes on and the API answers; back, it republishes the current state', async () => {
    const printer = await app.create({ name: 'Mid', connection_url: longJobSim('haf-mid') });
    await app.untilStatus(printer.id, 'idle');
    const job = await createJob(app, longGcode(1200), { printer_id: printer.id, name: 'through the outage' });
    await untilJob(app, job.id, (j) => j.status === 'printing' && j.progress > 0, 'printing');
    await broker.stop();
    const atLoss = (await app.call('GET', `/v1/jobs/${job.id}`)).body.progress as number;
    await app.until('the link to notice the loss', async () => (await timedStatus()).connected === false);
    // Printing goes on while the broker is away.
    await untilJob(app, job.id, (j) => j.progress > atLoss + 5, 'progress while the broker is down');
    for (let i = 0; i < 5; i++) await timedStatus();

    await broker.start();
    // Mosquitto lost its retained messages with its restart: everything the farm shows comes again from the farm.
    const watch = new Watcher(broker);
    try {
      await watch.until('the discovery and the printing state again', (w) => w.json(`printfarm/printer/${printer.id}/state`)?.status === 'printing' && w.last(`homeassistant/sensor/printfarm_${printer.id}/status/config`) !== undefined);
      assert.equal(watch.last(`printfarm/node/${app.t.deps.node.id}/availability`)?.payload, 'online');
      await untilStatus(app, job.id, 'completed', 60_000);
      await watch.until('the print ended on MQTT too', (w) => w.json(`printfarm/printer/${printer.id}/state`)?.status === 'idle');
    } finally {
      watch.close();
    }
  });
});

describe('GET /v1/homeassistant without --mqtt', () => {
  it('says it is not enabled', async () => {
    const app = await startPrintersApp();
    try {
      const res = await app.call('GET', '/v1/homeassistant');
      assert.equal(res.status, 200);
      assert.equal(res.body.enabled, false);
      assert.equal(res.body.broker, null);
    } finally {
      await app.close();
    }
  });
});
