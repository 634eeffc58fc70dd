// The pure pieces: the --mqtt URL and its flags, the command decisions, the local day of "failed today".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeTarget, parseMqttUrl } from '../../src/homeassistant/mqtt-target.js';
import { decideCommand } from '../../src/homeassistant/ha-commands.js';
import { startOfLocalDay } from '../../src/homeassistant/ha-state.js';
import { resolveServerConfig, ConfigError } from '../../src/config.js';

describe('--mqtt', () => {
  it('parses mqtt and mqtts URLs with their default ports and a percent-encoded password', () => {
    assert.deepEqual(parseMqttUrl('mqtt://ha:s%40cret@broker.lan'), { tls: false, host: 'broker.lan', port: 1883, username: 'ha', password: 's@cret' });
    assert.deepEqual(parseMqttUrl('mqtts://broker:9000'), { tls: true, host: 'broker', port: 9000, username: null, password: null });
    assert.equal(parseMqttUrl('mqtts://u:p@[::1]').host, '::1');
    assert.equal(describeTarget(parseMqttUrl('mqtts://u:p@[::1]')), 'mqtts://u@[::1]:8883');
  });

  it('refuses other schemes, a path, and says so without echoing the password', () => {
    assert.throws(() => resolveServerConfig({ mqtt: 'http://u:secret@broker' }, {}), (e: Error) => e instanceof ConfigError && /mqtt:\/\/ or mqtts:\/\//.test(e.message) && !e.message.includes('secret'));
    assert.throws(() => resolveServerConfig({ mqtt: 'mqtt://broker/topic' }, {}), /takes no path/);
    assert.throws(() => resolveServerConfig({ 'mqtt-ca': '/etc/ca.pem' }, {}), /goes with --mqtt/);
    const config = resolveServerConfig({}, { PRINTFARM_MQTT: 'mqtts://u:p@b', PRINTFARM_MQTT_CA: '/etc/ca.pem' });
    assert.equal(config.mqtt?.host, 'b');
    assert.equal(config.mqttCa, '/etc/ca.pem');
    assert.equal(resolveServerConfig({}, {}).mqtt, undefined);
  });
});

describe('MQTT commands', () => {
  it('takes the four button actions on a printer command topic', () => {
    for (const action of ['pause', 'resume', 'cancel', 'ready']) {
      assert.deepEqual(decideCommand('printfarm/printer/prt_1/command', ` ${action}\n`), { ok: true, printerId: 'prt_1', action });
    }
  });

  it('refuses API-only actions as a permission matter, and anything else as malformed', () => {
    const home = decideCommand('printfarm/printer/prt_1/command', 'emergency_stop');
    assert.equal(home.ok, false);
    assert.equal(!home.ok && home.code, 'insufficient_permissions');
    const junk = decideCommand('printfarm/printer/prt_1/command', 'x'.repeat(500));
    assert.equal(!junk.ok && junk.code, 'invalid_request');
    assert.ok(!junk.ok && junk.message.length < 200);
    assert.equal(decideCommand('printfarm/farm/command', 'pause').ok, false);
  });
});

describe('failed today', () => {
  it('counts from midnight in the organization time zone', () => {
    const now = Date.UTC(2026, 4, 10, 3, 30, 15, 250);
    assert.equal(new Date(startOfLocalDay(now, 'UTC')).toISOString(), '2026-05-10T00:00:00.000Z');
    // 05:30 in Berlin (UTC+2 in May): its midnight was 22:00 UTC the day before.
    assert.equal(new Date(startOfLocalDay(now, 'Europe/Berlin')).toISOString(), '2026-05-09T22:00:00.000Z');
    // 20:30 the day before in Los Angeles (UTC-7).
    assert.equal(new Date(startOfLocalDay(now, 'America/Los_Angeles')).toISOString(), '2026-05-09T07:00:00.000Z');
  });
});
