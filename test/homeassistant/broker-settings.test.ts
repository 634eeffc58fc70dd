// PUT /v1/homeassistant/settings: the broker set from the settings page, its password sealed at rest and never
// returned; the farm connects to it at once, stops on url null, and a --mqtt flag wins over it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { mintTestKey } from '../helpers/test-app.js';
import { brokerMissing, PASSWORD, startBroker, USER, Watcher, type TestBroker } from './broker-harness.js';

const TUNING = { backoff: { initialMs: 100, maxMs: 400 } };

describe('the broker in the settings', { skip: brokerMissing }, () => {
  let broker: TestBroker;
  let app: PrintersApp;
  before(async () => {
    broker = await startBroker({ tls: false });
    app = await startPrintersApp({ homeassistantTuning: TUNING });
  });
  after(async () => {
    await app?.close();
    await broker?.close();
  });

  it('stores the broker with its password sealed, never returns it, and connects at once', async () => {
    const before = await app.call('GET', '/v1/homeassistant');
    assert.equal(before.body.enabled, false);
    assert.equal(before.body.source, null);
    const url = `mqtt://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${broker.port}`;
    const put = await app.call('PUT', '/v1/homeassistant/settings', { url });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal(put.body.source, 'settings');
    assert.deepEqual(put.body.settings, { url: `mqtt://${USER}@127.0.0.1:${broker.port}`, has_password: true, has_ca: false });
    assert.doesNotMatch(JSON.stringify(put.body), /p@ss|p%40ss/);
    const row = await app.t.deps.db.selectFrom('organization').select(['mqtt_url', 'mqtt_password']).executeTakeFirstOrThrow();
    assert.ok(row.mqtt_password && !row.mqtt_password.includes(PASSWORD), 'sealed at rest');
    const watch = new Watcher(broker, ['printfarm/node/+/availability']);
    try {
      await watch.until('online', (w) => w.messages.some((m) => m.payload === 'online'));
      await app.until('connected', async () => (await app.call('GET', '/v1/homeassistant')).body.connected === true);
      // A save without a password keeps the stored one.
      const again = await app.call('PUT', '/v1/homeassistant/settings', { url: `mqtt://${USER}@127.0.0.1:${broker.port}` });
      assert.equal(again.body.settings.has_password, true);
      await app.until('connected again', async () => (await app.call('GET', '/v1/homeassistant')).body.connected === true);
      // A wrong password: the status says the broker refused it.
      await app.call('PUT', '/v1/homeassistant/settings', { url: `mqtt://${USER}@127.0.0.1:${broker.port}`, password: 'wrong' });
      await app.until('refused', async () => /authori[sz]ed|password/i.test((await app.call('GET', '/v1/homeassistant')).body.last_error ?? ''));
      assert.equal((await app.call('GET', '/v1/homeassistant')).body.connected, false);
      // Off.
      const off = await app.call('PUT', '/v1/homeassistant/settings', { url: null });
      assert.equal(off.body.enabled, false);
      assert.deepEqual(off.body.settings, { url: null, has_password: false, has_ca: false });
    } finally {
      watch.close();
    }
  });

  it('refuses a bad URL, a bad certificate, unknown fields and a caller without admin', async () => {
    const bad = await app.call('PUT', '/v1/homeassistant/settings', { url: 'http://broker' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /mqtt:\/\/ or mqtts:\/\//);
    const pem = await app.call('PUT', '/v1/homeassistant/settings', { url: 'mqtts://b', ca_pem: 'not a certificate' });
    assert.equal(pem.status, 400);
    assert.match(pem.body.error.message, /PEM/);
    assert.equal((await app.call('PUT', '/v1/homeassistant/settings', { url: null, extra: 1 })).status, 400);
    const reader = await mintTestKey(app.t, ['printers:*']);
    assert.equal((await app.call('PUT', '/v1/homeassistant/settings', { url: null }, reader)).status, 403);
    assert.equal((await app.call('GET', '/v1/homeassistant', undefined, reader)).status, 200);
  });

  it('with --mqtt the flag wins: settings are stored, the flag\'s broker stays in use', async () => {
    const flagged = await startPrintersApp({ homeassistant: { target: broker.target, ...TUNING } });
    try {
      const put = await flagged.call('PUT', '/v1/homeassistant/settings', { url: 'mqtt://other@127.0.0.1:1' });
      assert.equal(put.status, 200);
      assert.equal(put.body.source, 'flag');
      assert.equal(put.body.broker, `mqtt://${USER}@127.0.0.1:${broker.port}`);
      assert.equal(put.body.settings.url, 'mqtt://other@127.0.0.1:1');
    } finally {
      await flagged.close();
    }
  });
});
