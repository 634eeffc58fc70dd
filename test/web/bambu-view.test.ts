// The dashboard's Bambu words and pin handling (web/src/lib/bambu.ts, printer-kinds.ts): the URL the picker builds is
// the one the server reads, the pin is kept or replaced without touching the rest of the URL, the certificate a
// refused link presents is read from the driver's own words, and live telemetry carries the Bambu state onto the record.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseNetworkUrl as serverParse } from '../../src/printers/network-url.js';
import { buildNetworkUrl, EMPTY_NETWORK, KIND_ORDER, offlineWords, parseNetworkUrl } from '../../web/src/lib/printer-kinds.js';
import {
  fanWords, hmsByWeight, hmsText, layerWords, pinnedInUrl, remainWords, shownFingerprint, timeLeftWords,
  urlFingerprint, withFingerprint, type BambuHms, type BambuState,
} from '../../web/src/lib/bambu.js';
import { applyTelemetry, type Printer, type Telemetry } from '../../web/src/pages/printer-types.js';

const PIN = 'ab'.repeat(32);
const NEW = 'cd'.repeat(32);

describe('dashboard Bambu printers', () => {
  it('offers Bambu in the picker and builds bambu:// URLs the server reads with the same serial, port and pin', () => {
    assert.ok(KIND_ORDER.includes('bambu'));
    // [fields, built URL, server's port, serial, fingerprint, ftp port]
    const table: Array<[Partial<typeof EMPTY_NETWORK>, string, number, string, string | null, number]> = [
      [{ host: '192.168.1.30', serial: '01P00A000000001' }, 'bambu://192.168.1.30?serial=01P00A000000001', 8883, '01P00A000000001', null, 990],
      [{ host: '10.0.0.9', port: '18883', serial: '01S00C1', fingerprint: PIN, ftpPort: '1990' }, `bambu://10.0.0.9:18883?serial=01S00C1&fingerprint=${PIN}&ftp_port=1990`, 18883, '01S00C1', PIN, 1990],
      // The HTTPS switch of the other kinds means nothing here: a Bambu URL is always TLS and has no +https form.
      [{ host: 'x1c.lan', serial: 'ABCD1234', https: true, fingerprint: PIN }, `bambu://x1c.lan?serial=ABCD1234&fingerprint=${PIN}`, 8883, 'ABCD1234', PIN, 990],
    ];
    for (const [fields, url, port, serial, fp, ftp] of table) {
      const built = buildNetworkUrl('bambu', { ...EMPTY_NETWORK, ...fields });
      assert.equal(built, url, JSON.stringify(fields));
      const s = serverParse(built);
      assert.deepEqual([s.kind, s.port, s.serial, s.fingerprint, s.ftpPort], ['bambu', port, serial, fp, ftp], built);
      // Pasted back, the URL fills the same fields.
      const back = parseNetworkUrl(built);
      assert.equal(back?.kind, 'bambu');
      assert.equal(buildNetworkUrl('bambu', back!.fields), built);
    }
    // No serial typed yet: the URL is left without it, and the server names what is missing.
    assert.equal(buildNetworkUrl('bambu', { ...EMPTY_NETWORK, host: 'p1s' }), 'bambu://p1s');
    assert.throws(() => serverParse('bambu://p1s'), /needs its serial/);
    for (const url of ['bambu+https://h?serial=A1B2', 'bambu://h?serial=A1B2&storage=usb']) assert.equal(parseNetworkUrl(url), null, url);
  });

  it('says what to do for each reason a Bambu printer is unusable', () => {
    const words = (offline_reason: Parameters<typeof offlineWords>[0]['offline_reason']) => offlineWords({ kind: 'bambu', offline_reason, error: null });
    assert.match(words('unreachable')!, /Unreachable.*LAN-only mode.*Developer Mode/);
    assert.match(words('auth_failed')!, /LAN access code was refused.*printer’s screen.*settings/);
    assert.match(words('tls_error')!, /certificate is not the pinned one.*re-pin/);
    // The other kinds keep their words.
    assert.equal(offlineWords({ kind: 'octoprint', offline_reason: 'auth_failed', error: null }), 'The API key was refused');
    assert.equal(words(null), null);
  });

  it('puts what the printer reports in words', () => {
    assert.equal(layerWords({ layer: 12, total_layers: 200 }), 'Layer 12 of 200');
    assert.equal(layerWords({ layer: 3, total_layers: null }), 'Layer 3');
    assert.equal(layerWords({ layer: 0, total_layers: 0 }), null);
    assert.equal(layerWords({ layer: null, total_layers: 200 }), null);
    assert.equal(timeLeftWords(42), '42 min left');
    assert.equal(timeLeftWords(125), '2 h 05 min left');
    assert.equal(timeLeftWords(0), null);
    assert.deepEqual([fanWords(100), fanWords(0), fanWords(null)], ['100 %', 'off', 'not reported']);
    assert.deepEqual([remainWords(80), remainWords(-1), remainWords(null)], ['80 % left', 'amount unknown', 'amount unknown']);
    const hms = (code: string, severity: BambuHms['severity']): BambuHms => ({ code, severity, module: 'm', message: 'w', url: 'u' });
    // The server's generic words (no copy of Bambu's texts) are said shorter; a real text is kept as it is.
    const generic = { code: 'HMS_0300_0100_0001_0007', module: 'motion controller', message: 'fatal motion controller error HMS_0300_0100_0001_0007 (see https://wiki.bambulab.com/en/hms/home, code 0300_0100_0001_0007)' };
    assert.match(hmsText(generic), /^The motion controller reports error 0300_0100_0001_0007; .*what to do/);
    assert.equal(hmsText({ ...generic, message: 'The heatbed temperature is abnormal.' }), 'The heatbed temperature is abnormal.');
    assert.deepEqual(hmsByWeight([hms('a', 'info'), hms('b', 'fatal'), hms('c', 'common')]).map((h) => h.code), ['b', 'c', 'a']);
  });

  it('keeps a first-contact pin in the URL, or replaces it, leaving the rest of the URL as it is', () => {
    const url = 'bambu://127.0.0.1:18883?serial=01P00A000000001&ftp_port=1990';
    assert.equal(urlFingerprint(url), null);
    assert.equal(pinnedInUrl(url, PIN), false);
    const kept = withFingerprint(url, shownFingerprint(PIN));
    assert.equal(kept, `bambu://127.0.0.1:18883?serial=01P00A000000001&fingerprint=${PIN}&ftp_port=1990`);
    assert.equal(serverParse(kept!).fingerprint, PIN);
    assert.equal(pinnedInUrl(kept!, shownFingerprint(PIN)), true, 'the same pin in either spelling');
    assert.equal(pinnedInUrl(kept!, NEW), false);
    assert.equal(withFingerprint(kept!, NEW), `bambu://127.0.0.1:18883?serial=01P00A000000001&fingerprint=${NEW}&ftp_port=1990`);
    assert.equal(withFingerprint(kept!, null), url);
    assert.equal(withFingerprint('moonraker://h', PIN), null);
    assert.equal(shownFingerprint(PIN), 'AB:'.repeat(31) + 'AB');
    assert.equal(shownFingerprint('nope'), '');
  });

  it('takes a Bambu state from live telemetry, and keeps it when a sample carries none', () => {
    const bambu: BambuState = {
      model: 'P1S', serial: '01P00A000000001', certificate_fingerprint: PIN, presented_fingerprint: null, layer: 12, total_layers: 200, remaining_minutes: 42,
      part_fan_percent: 100, ams: [{ index: 0, unit: 0, tray: 0, label: 'A1', type: 'PLA', color: '#FF0000', remain_percent: 80, active: true }], hms: [],
    };
    const p = { id: 'prt_1', status: 'idle', connecting: false, temperatures: {}, progress: null, current_job: null, external_job: null, bambu: null } as unknown as Printer;
    const sample: Telemetry = { printer_id: 'prt_1', status: 'printing', temperatures: p.temperatures, progress: 5, job_id: null, bambu };
    const next = applyTelemetry(p, sample);
    assert.deepEqual(next.bambu, bambu);
    const { bambu: _left, ...without } = sample;
    assert.deepEqual(applyTelemetry(next, without).bambu, bambu);
  });
});
