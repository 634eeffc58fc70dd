// Pure pieces of the printers feature, by table: the secret box and its key file, connection URL checks, console command words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkConnectionUrl, linkIdentity } from '../../src/printers/connection-url.js';
import { commandWord } from '../../src/printers/printer-commands.js';
import { apiStatus, toPrinterRecord, type PrinterRow } from '../../src/printers/printer-record.js';
import { loadSecretBox, SECRET_KEY_FILE, SecretBox } from '../../src/printers/secret-box.js';

test('the secret box opens only what it sealed, for the same record, under the same key', () => {
  const box = SecretBox.ephemeral();
  const sealed = box.seal('s3cret ключ', 'prt_a');
  assert.notEqual(box.seal('s3cret ключ', 'prt_a'), sealed, 'a fresh IV every time');
  assert.equal(box.open(sealed, 'prt_a'), 's3cret ключ');
  assert.throws(() => box.open(sealed, 'prt_b'), 'bound to its record');
  assert.throws(() => SecretBox.ephemeral().open(sealed, 'prt_a'), 'another key');
  const raw = Buffer.from(sealed.slice(3), 'base64');
  raw[raw.length - 1]! ^= 1;
  assert.throws(() => box.open(`v1:${raw.toString('base64')}`, 'prt_a'), 'tampered');
  assert.throws(() => box.open('plain', 'prt_a'), /not a sealed value/);
  assert.throws(() => new SecretBox(Buffer.alloc(16)), /32 bytes/);
});

test('the key file is made once with mode 0600, reused, tightened when looser, and refused when damaged', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-secret-'));
  try {
    const file = path.join(dir, SECRET_KEY_FILE);
    const first = loadSecretBox(dir);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const sealed = first.seal('k', 'prt_x');
    await chmod(file, 0o644);
    assert.equal(loadSecretBox(dir).open(sealed, 'prt_x'), 'k', 'the same key on the next start');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.equal(Buffer.from((await readFile(file, 'utf8')).trim(), 'base64').length, 32);
    await writeFile(file, 'short\n');
    assert.throws(() => loadSecretBox(dir), /does not hold a 32-byte base64 key/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('connection URLs: accepted forms are trimmed; profile= is checked for serial and tcp; sim options by the simulator', () => {
  const ok: Array<[string, string]> = [
    [' serial:///dev/ttyACM0?baud=250000 ', 'serial'],
    ['/dev/serial/by-id/usb-x-if00', 'serial'],
    ['/dev/ttyUSB0?baud=115200&profile=prusa', 'serial'],
    ['tcp://192.168.1.40:23?profile=klipper', 'tcp'],
    ['sim://demo?profile=prusa&speed=max', 'sim'],
  ];
  for (const [url, kind] of ok) {
    const r = checkConnectionUrl(url);
    assert.equal(r.url, url.trim());
    assert.equal(r.parsed.kind, kind, url);
  }
  const bad: Array<[string, RegExp]> = [
    ['', /must not be empty/],
    ['ftp://x', /unknown scheme "ftp:"/],
    ['tcp://h:99999', /out of range|not a URL|invalid/],
    ['tcp://h:23?baud=9600', /unknown parameter "baud"/],
    ['/dev/ttyACM0?profile=octo', /unknown firmware profile 'octo'/],
    ['sim://x?speed=fast', /invalid simulator option/],
    ['sim://x\n', /control characters/],
  ];
  for (const [url, message] of bad) {
    assert.throws(
      () => checkConnectionUrl(url),
      (e: Error & { status?: number }) => e.status === 400 && /^connection_url: /.test(e.message) && message.test(e.message),
      url,
    );
  }
});

test('link identity: one serial device whatever the path spelling; TCP by endpoint; sim by URL', async () => {
  assert.equal(await linkIdentity('serial:///dev/null-printer?baud=115200'), await linkIdentity('/dev/null-printer'));
  assert.equal(await linkIdentity('tcp://Bridge.local:23'), await linkIdentity('tcp://bridge.local:23?profile=marlin'));
  assert.notEqual(await linkIdentity('sim://a?speed=max'), await linkIdentity('sim://a'));
  assert.equal(await linkIdentity('not a url at all'), 'not a url at all');
});

test('console command words: letter upper-cased, leading zeros dropped, comments ignored', () => {
  const table: Array<[string, string]> = [
    ['M105', 'M105'],
    ['m105', 'M105'],
    ['M0105 ; temps', 'M105'],
    ['  g28 X Y', 'G28'],
    ['M117 Hello world', 'M117'],
    ['T1', 'T1'],
    ['; only a comment', ''],
  ];
  for (const [text, word] of table) assert.equal(commandWord(text), word, text);
});

test('record: connecting shows as offline; temperatures are null while offline; ready needs row and session', () => {
  assert.equal(apiStatus(undefined), 'offline');
  assert.equal(apiStatus('connecting'), 'offline');
  assert.equal(apiStatus('paused'), 'paused');
  const row: PrinterRow = {
    id: 'prt_1', name: 'n', connection_url: 'sim://n', api_key_sealed: null, model: null, group_name: null, tags: '[]', ready: 1,
    firmware: 'Marlin 2.1', material_type: null, material_color: null, nozzle_diameter: null, heatup_watts: null,
    power_watts: null, clear_bed_gcode: null, clear_bed_temperature: null, created_at: 't', updated_at: 't', node_id: null,
    start_refusals: 0, start_refused_message: null, start_refused_since: null,
  };
  const snap = {
    printer_id: 'prt_1', url: 'sim://n', status: 'offline' as const, ready: false, firmware: null,
    temperatures: { hotend: 25, bed: 24 }, job: null, error: { code: 'link_lost', message: 'cable' },
  };
  const offline = toPrinterRecord(row, snap);
  assert.deepEqual(offline.temperatures, { hotend: null, bed: null, hotend_target: null, bed_target: null });
  assert.equal(offline.firmware, 'Marlin 2.1', 'the stored firmware while the session has none');
  assert.equal(offline.ready, false);
  assert.deepEqual(offline.error, { code: 'link_lost', message: 'cable' });
  const idle = toPrinterRecord({ ...row, ready: 0 }, { ...snap, status: 'idle', ready: true, error: null });
  assert.equal(idle.ready, false, 'a stored uncleared bed wins over a fresh session');
  assert.equal(idle.temperatures.hotend, 25);
  assert.equal(idle.temperatures.hotend_target, null);
  assert.equal(toPrinterRecord(row, null).connecting, false);
});
