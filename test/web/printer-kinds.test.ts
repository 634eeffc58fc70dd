// The dashboard's printer URL builder (web/src/lib/printer-kinds.ts) against the server's own parser: every URL the form
// builds is one the server accepts with the same kind, host, port and pin; a pasted URL comes back as the same fields.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseNetworkUrl as serverParse, printerKindOf } from '../../src/printers/network-url.js';
import { buildNetworkUrl, EMPTY_NETWORK, kindOfUrl, offlineWords, parseNetworkUrl, type NetworkFields, type NetworkKind } from '../../web/src/lib/printer-kinds.js';

const PIN = 'ab'.repeat(32);

describe('dashboard printer URLs', () => {
  it('builds URLs the server reads as the fields meant', () => {
    // [kind, fields, built URL, server's base URL, server's fingerprint]
    const table: Array<[NetworkKind, Partial<NetworkFields>, string, string, string | null]> = [
      ['moonraker', { host: 'voron.local' }, 'moonraker://voron.local', 'http://voron.local:7125', null],
      ['moonraker', { host: '192.168.1.40', port: '7126' }, 'moonraker://192.168.1.40:7126', 'http://192.168.1.40:7126', null],
      ['moonraker', { host: 'voron.local', https: true }, 'moonraker+https://voron.local', 'https://voron.local:7130', null],
      ['octoprint', { host: 'octopi.local', path: 'octoprint/' }, 'octoprint://octopi.local/octoprint', 'http://octopi.local:80/octoprint', null],
      ['octoprint', { host: 'octopi.local', https: true, fingerprint: PIN }, `octoprint+https://octopi.local?fingerprint=${PIN}`, 'https://octopi.local:443', PIN],
      ['prusalink', { host: 'fe80::1', port: '8080' }, 'prusalink://[fe80::1]:8080', 'http://[fe80::1]:8080', null],
      // A path or a pin where it does not belong is left out: the fields a kind does not show never leak into its URL.
      ['prusalink', { host: 'mk4', path: '/x', fingerprint: PIN }, 'prusalink://mk4', 'http://mk4:80', null],
    ];
    for (const [kind, fields, url, base, fingerprint] of table) {
      const built = buildNetworkUrl(kind, { ...EMPTY_NETWORK, ...fields });
      assert.equal(built, url, JSON.stringify(fields));
      const server = serverParse(built);
      assert.deepEqual([server.kind, server.baseUrl, server.fingerprint], [kind, base, fingerprint], built);
      assert.equal(kindOfUrl(built), printerKindOf(built));
    }
    assert.equal(buildNetworkUrl('moonraker', { ...EMPTY_NETWORK, port: '7125' }), '', 'no host yet: no URL');
  });

  it('takes a pasted URL apart into the fields, and leaves what it cannot read to the server', () => {
    assert.deepEqual(parseNetworkUrl(`moonraker+https://10.0.0.5:7130?fingerprint=${PIN}`), {
      kind: 'moonraker',
      fields: { https: true, host: '10.0.0.5', port: '7130', path: '', fingerprint: PIN },
    });
    assert.deepEqual(parseNetworkUrl('OctoPrint://octopi.local/octoprint/'), {
      kind: 'octoprint',
      fields: { https: false, host: 'octopi.local', port: '', path: '/octoprint', fingerprint: '' },
    });
    for (const url of ['serial:///dev/ttyACM0', 'sim://a', 'moonraker://', 'moonraker://h/path', 'prusalink://u:p@h', 'moonraker://h?x=1', 'octoprint://h#frag']) {
      assert.equal(parseNetworkUrl(url), null, url);
    }
    for (const url of ['serial:///dev/ttyACM0', 'tcp://h:23', 'sim://a', 'moonraker+https://h', 'PRUSALINK://h', 'http://h']) {
      assert.equal(kindOfUrl(url), printerKindOf(url), url);
    }
  });

  it('says each offline reason in words', () => {
    const error = { code: 'firmware_error', message: 'MCU shutdown: heater extruder not heating at expected rate' };
    const table: Array<[Parameters<typeof offlineWords>[0], string | null]> = [
      [{ kind: 'moonraker', offline_reason: null, error: null }, null],
      [{ kind: 'octoprint', offline_reason: 'unreachable', error: null }, 'Unreachable — nothing answers at the address'],
      [{ kind: 'octoprint', offline_reason: 'auth_failed', error: null }, 'The API key was refused'],
      [{ kind: 'prusalink', offline_reason: 'auth_failed', error: null }, 'The user:password or API key was refused'],
      [{ kind: 'moonraker', offline_reason: 'firmware_error', error }, `The firmware stopped: ${error.message}`],
      [{ kind: 'moonraker', offline_reason: 'printer_disconnected', error: null }, 'Moonraker is up but its printer is not connected'],
      [{ kind: 'octoprint', offline_reason: 'printer_disconnected', error: null }, 'OctoPrint is up but its printer is not connected'],
      [{ kind: 'prusalink', offline_reason: 'tls_error', error: null }, 'TLS: the certificate is not trusted (pin its fingerprint)'],
    ];
    for (const [p, words] of table) assert.equal(offlineWords(p), words, JSON.stringify(p));
  });
});
