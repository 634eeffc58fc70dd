// The Bambu stand-in on its real parts (Mosquitto, vsftpd): the documented messages answered as a printer does.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Client } from 'basic-ftp';
import mqtt, { type MqttClient } from 'mqtt';
import { bambuStandInUnavailable, startBambuStandIn, type BambuStandIn } from '../../../src/simulator/bambu/bambu-standin.js';

const skip = bambuStandInUnavailable() ?? false;
const GCODE = Buffer.from(['G28', 'M104 S200', 'M140 S60', ...Array.from({ length: 60 }, (_, i) => `;LAYER_CHANGE\nG1 X${i} Y${i} E${i / 10} F6000`), 'M104 S0'].join('\n') + '\n');

async function client(s: BambuStandIn, password = s.accessCode): Promise<MqttClient> {
  const c = mqtt.connect({ host: '127.0.0.1', port: s.mqttPort, protocol: 'mqtts', username: 'bblp', password, rejectUnauthorized: false, reconnectPeriod: 0 });
  await new Promise<void>((resolve, reject) => {
    c.once('connect', () => resolve());
    c.once('error', reject);
  });
  return c;
}

function reports(c: MqttClient, s: BambuStandIn): Array<Record<string, unknown>> {
  const seen: Array<Record<string, unknown>> = [];
  c.subscribe(`device/${s.serial}/report`);
  c.on('message', (_t, p) => {
    const m = JSON.parse(p.toString()) as { print?: Record<string, unknown> };
    if (m.print) seen.push(m.print);
  });
  return seen;
}

async function until<T>(what: string, f: () => T | undefined | null | false, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function upload(s: BambuStandIn, name: string, body: Buffer): Promise<void> {
  const ftp = new Client(10_000);
  await ftp.access({ host: '127.0.0.1', port: s.ftpPort, user: 'bblp', password: s.accessCode, secure: 'implicit', secureOptions: { rejectUnauthorized: false } });
  await ftp.uploadFrom(Readable.from(body), name);
  ftp.close();
}

describe('Bambu stand-in (Mosquitto + vsftpd)', { skip }, () => {
  let s: BambuStandIn;
  before(async () => {
    s = await startBambuStandIn({ partial: true, reportMs: 100, simulator: { speed: 'max' } });
  });
  after(async () => s?.close());

  it('refuses a wrong access code at the broker', async () => {
    await assert.rejects(client(s, 'wrong'), /Not authorized|Bad user/i);
  });

  it('answers pushall with a full report, then sends only what changed (P1/A1)', async () => {
    const c = await client(s);
    const seen = reports(c, s);
    c.publish(`device/${s.serial}/request`, JSON.stringify({ pushing: { sequence_id: '1', command: 'pushall' } }));
    const full = await until('a full report', () => seen.find((r) => r.msg === 0));
    assert.equal(full.gcode_state, 'IDLE');
    assert.ok(Array.isArray((full.ams as { ams: unknown[] }).ams));
    await upload(s, 'cube.gcode', GCODE);
    c.publish(`device/${s.serial}/request`, JSON.stringify({ print: { sequence_id: '2', command: 'project_file', param: 'Metadata/plate_1.gcode', url: 'file:///sdcard/cube.gcode', subtask_name: 'cube' } }));
    await until('FINISH', () => seen.find((r) => r.gcode_state === 'FINISH'));
    const partial = seen.filter((r) => r.msg === 1);
    assert.ok(partial.length > 0);
    assert.ok(partial.some((r) => !('ams' in r)), 'a partial report leaves out what did not change');
    assert.ok(seen.some((r) => r.total_layer_num === 60));
    c.end(true);
  });
});
