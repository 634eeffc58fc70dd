// `printfarm serve` with PRINTFARM_MQTT/PRINTFARM_MQTT_CA (the --mqtt and --mqtt-ca variables) against Mosquitto over
// TLS with a password: it comes online; killed (a power cut), the broker publishes its last will: offline.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { initialAdminKey, newSecretKey, removeDataDirs, startNodeProcess, type NodeProcess } from '../helpers/node-processes.js';
import { brokerMissing, startBroker, Watcher, type TestBroker } from './broker-harness.js';

describe('printfarm serve --mqtt', { skip: brokerMissing }, () => {
  let broker: TestBroker;
  let node: NodeProcess | undefined;
  let watch: Watcher | undefined;
  before(async () => {
    broker = await startBroker({ tls: true });
  });
  after(async () => {
    watch?.close();
    await node?.kill();
    if (node) removeDataDirs([node]);
    await broker?.close();
  });

  it('publishes online, reports connected, and its last will says offline when the process is killed', async () => {
    node = await startNodeProcess({ name: 'ha-serve', secretKey: newSecretKey(), extraEnv: { PRINTFARM_MQTT: broker.url, PRINTFARM_MQTT_CA: broker.cert!.certPath } });
    watch = new Watcher(broker, ['printfarm/node/+/availability', 'homeassistant/sensor/printfarm_farm/+/config']);
    await watch.until('the node online', (w) => w.messages.some((m) => m.topic.endsWith('/availability') && m.payload === 'online'));
    const topic = watch.messages.find((m) => m.topic.endsWith('/availability'))!.topic;
    await watch.until('the farm device', (w) => w.messages.filter((m) => m.topic.endsWith('/config')).length === 4);
    const key = initialAdminKey([node]).key;
    const status = (await (await fetch(`${node.url}/v1/homeassistant`, { headers: { Authorization: `Bearer ${key}` } })).json()) as Record<string, unknown>;
    assert.equal(status.enabled, true);
    assert.equal(status.connected, true);
    assert.equal(status.broker, `mqtts://farm@127.0.0.1:${broker.port}`);
    await node.kill();
    await watch.until('the last will', (w) => w.last(topic)?.payload === 'offline');
  });
});
