// The farm in Home Assistant against a real Mosquitto (TLS, a password), read back with mosquitto_sub: availability,
// discovery that passes Home Assistant's schema, retained printer and farm state, and the button commands with their
// refusals published on printfarm/error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startPrintersApp, fastSim, longJobSim, type PrintersApp } from '../printers/printers-api-harness.js';
import { createJob, longGcode, untilJob, untilStatus } from '../jobs/jobs-harness.js';
import { brokerMissing, mosquittoPub, startBroker, Watcher, type TestBroker } from './broker-harness.js';
import { discoveryProblems } from './ha-schema.js';

const AVAILABILITY = (app: PrintersApp): string => `printfarm/node/${app.t.deps.node.id}/availability`;

describe('the farm in Home Assistant over MQTT (TLS, password)', { skip: brokerMissing }, () => {
  let broker: TestBroker;
  let app: PrintersApp;
  let watch: Watcher;
  before(async () => {
    broker = await startBroker({ tls: true });
    app = await startPrintersApp({ homeassistant: { target: broker.target, ca: broker.ca!, backoff: { initialMs: 100, maxMs: 500 } } });
  });
  after(async () => {
    watch?.close();
    await app?.close();
    await broker?.close();
  });

  it('publishes availability, discovery for each printer and the farm, and retained state that mosquitto_sub reads', async () => {
    const printer = await app.create({ name: 'Left MK4', connection_url: fastSim('ha-left') });
    await app.untilStatus(printer.id, 'idle');
    watch = new Watcher(broker);
    const state = `printfarm/printer/${printer.id}/state`;
    await watch.until('the printer idle on its state topic', (w) => w.json(state)?.status === 'idle');
    assert.equal(watch.last(AVAILABILITY(app))?.payload, 'online');
    assert.equal(watch.last(AVAILABILITY(app))?.retained, true);
    assert.equal(watch.last(state)?.retained, true);
    const configs = watch.messages.filter((m) => m.topic.startsWith('homeassistant/') && m.topic.endsWith('/config'));
    const printerConfigs = configs.filter((m) => m.topic.includes(`printfarm_${printer.id}/`));
    assert.equal(printerConfigs.length, 18, printerConfigs.map((m) => m.topic).join('\n'));
    assert.equal(configs.filter((m) => m.topic.includes('/printfarm_farm/')).length, 4);
    const s = watch.json(state);
    assert.deepEqual(Object.keys(s).sort(), ['bed', 'bed_target', 'bed_waiting', 'filament', 'hotend', 'hotend_target', 'job', 'offline_reason', 'online', 'printing', 'problem', 'progress', 'status', 'time_left']);
    assert.equal(s.online, 'ON');
    assert.equal(s.offline_reason, 'none');
    const device = JSON.parse(printerConfigs[0]!.payload).device;
    assert.deepEqual(device.identifiers, [`printfarm_${printer.id}`]);
    assert.equal(device.name, 'Left MK4');
    await watch.until('farm totals', (w) => w.json('printfarm/farm/state')?.idle >= 1);
    // Telemetry follows (at most once a second): the virtual printer's temperatures.
    await watch.until('temperatures', (w) => typeof w.json(state)?.hotend === 'number' && typeof w.json(state)?.bed === 'number');
  });

  it('every discovery message passes Home Assistant\'s schema, and its state topic is published', async () => {
    // A fresh subscriber gets exactly what the broker retains: what Home Assistant reads when it starts.
    const fresh = new Watcher(broker);
    try {
      await fresh.until('the retained farm state', (w) => w.last('printfarm/farm/state') !== undefined && w.messages.filter((m) => m.topic.endsWith('/config')).length >= 22);
      const retained = new Map(fresh.messages.filter((m) => m.retained).map((m) => [m.topic, m.payload]));
      const configs = [...retained].filter(([t]) => t.startsWith('homeassistant/'));
      assert.ok(configs.length >= 22);
      const problems = configs.flatMap(([topic, payload]) => discoveryProblems({ topic, payload }, retained));
      assert.deepEqual(problems, []);
      const ids = configs.map(([, p]) => JSON.parse(p).unique_id);
      assert.equal(new Set(ids).size, ids.length, 'unique_id values are unique');
    } finally {
      fresh.close();
    }
  });

  it('the schema check fails on a missing unique_id, a wrong device_class and a state topic never published', () => {
    const state = JSON.stringify({ hotend: 20 });
    const good = { name: 'Hotend', unique_id: 'u1', device: { identifiers: ['d'], name: 'P' }, state_topic: 's/1', value_template: '{{ value_json.hotend }}', device_class: 'temperature', unit_of_measurement: '°C' };
    const topic = 'homeassistant/sensor/d/hotend/config';
    const states = new Map([['s/1', state]]);
    assert.deepEqual(discoveryProblems({ topic, payload: JSON.stringify(good) }, states), []);
    const { unique_id: _u, ...noId } = good;
    assert.match(discoveryProblems({ topic, payload: JSON.stringify(noId) }, states).join(), /missing unique_id/);
    assert.match(discoveryProblems({ topic, payload: JSON.stringify({ ...good, device_class: 'temp' }) }, states).join(), /device_class temp/);
    assert.match(discoveryProblems({ topic: 'homeassistant/binary_sensor/d/x/config', payload: JSON.stringify({ ...good, device_class: 'temperature', unit_of_measurement: undefined }) }, states).join(), /device_class temperature is not one of binary_sensor/);
    assert.match(discoveryProblems({ topic, payload: JSON.stringify({ ...good, state_topic: 's/never' }) }, states).join(), /never published/);
    assert.match(discoveryProblems({ topic, payload: JSON.stringify({ ...good, unit_of_measurement: 'C' }) }, states).join(), /unit C/);
  });

  it('buttons pause, resume and cancel a print; the job name and progress are in the state', async () => {
    const printer = await app.create({ name: 'Slow', connection_url: longJobSim('ha-slow') });
    await app.untilStatus(printer.id, 'idle');
    const job = await createJob(app, longGcode(3000, ['; estimated printing time (normal mode) = 10m 0s']), { printer_id: printer.id, name: 'gear box' });
    await untilJob(app, job.id, (j) => j.status === 'printing' && j.progress > 0, 'printing');
    const state = `printfarm/printer/${printer.id}/state`;
    await watch.until('printing state with the job name', (w) => w.json(state)?.status === 'printing' && w.json(state)?.job === 'gear box');
    assert.equal(watch.json(state).printing, 'ON');
    await watch.until('progress and time left', (w) => w.json(state)?.progress > 0 && typeof w.json(state)?.time_left === 'number');
    const command = `printfarm/printer/${printer.id}/command`;
    await mosquittoPub(broker, command, 'pause');
    await untilStatus(app, job.id, 'paused');
    await watch.until('paused state', (w) => w.json(state)?.status === 'paused');
    await mosquittoPub(broker, command, 'resume');
    await untilStatus(app, job.id, 'printing');
    await mosquittoPub(broker, command, 'cancel');
    await untilStatus(app, job.id, 'cancelled');
    await watch.until('idle, bed waiting to be cleared', (w) => w.json(state)?.status === 'idle' && w.json(state)?.bed_waiting === 'ON');
    await mosquittoPub(broker, command, 'ready');
    await watch.until('bed cleared', (w) => w.json(state)?.bed_waiting === 'OFF');
    assert.equal((await app.get(printer.id)).ready, true);
  });

  it('refuses other commands with a published error: wrong state, API-only action, unknown command, unknown printer, the farm topic', async () => {
    const printer = await app.create({ name: 'Idle one', connection_url: fastSim('ha-idle') });
    await app.untilStatus(printer.id, 'idle');
    const command = `printfarm/printer/${printer.id}/command`;
    const errors = (): any[] => watch.messages.filter((m) => m.topic === 'printfarm/error').map((m) => JSON.parse(m.payload));
    const refusal = async (topic: string, payload: string): Promise<any> => {
      const before = errors().length;
      await mosquittoPub(broker, topic, payload);
      await watch.until(`an error for ${payload} on ${topic}`, () => errors().length > before);
      return errors()[before];
    };
    const paused = await refusal(command, 'pause');
    assert.equal(paused.error.code, 'invalid_state');
    assert.equal(paused.printer_id, printer.id);
    assert.equal((await refusal(command, 'emergency_stop')).error.code, 'insufficient_permissions');
    assert.equal((await refusal(command, 'home')).error.code, 'insufficient_permissions');
    assert.equal((await refusal(command, 'print everything')).error.code, 'invalid_request');
    assert.equal((await refusal('printfarm/printer/prt_nope/command', 'pause')).error.code, 'resource_not_found');
    assert.equal((await refusal('printfarm/farm/command', 'pause')).error.code, 'invalid_request');
    assert.equal(watch.last('printfarm/error')?.retained, false);
    assert.equal((await app.get(printer.id)).status, 'idle');
    assert.equal(app.t.deps.homeassistant.status()!.commands_refused >= 6, true);
  });

  it('a removed printer\'s entities are removed from Home Assistant (empty retained configs)', async () => {
    const printer = await app.create({ name: 'Going', connection_url: fastSim('ha-going') });
    await app.untilStatus(printer.id, 'idle');
    const topic = `homeassistant/sensor/printfarm_${printer.id}/status/config`;
    await watch.until('its discovery', (w) => (w.last(topic)?.payload ?? '') !== '');
    assert.equal((await app.call('DELETE', `/v1/printers/${printer.id}`)).status, 204);
    await watch.until('its discovery cleared', (w) => w.last(topic)?.payload === '');
    await watch.until('its state cleared', (w) => w.last(`printfarm/printer/${printer.id}/state`)?.payload === '');
  });

  it('a clean stop says offline on the availability topic', async () => {
    const other = await startPrintersApp({ homeassistant: { target: broker.target, ca: broker.ca!, backoff: { initialMs: 100, maxMs: 500 } } });
    const topic = AVAILABILITY(other);
    await watch.until('the second node online', (w) => w.last(topic)?.payload === 'online');
    await other.close();
    await watch.until('the second node offline', (w) => w.last(topic)?.payload === 'offline');
  });
});
