// Tables for the pure part of network discovery: announced services -> printers to offer, and which printer uses each.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { endpointOf, networkPrinters, parseTxt, type DiscoveredNetworkPrinter } from '../../src/printers/network-printers.js';
import type { MdnsServiceRecord } from '../../src/transport/mdns-browser.js';

/** An answer as bonjour-service hands it over; each row changes what it is about. */
const answer = (over: Partial<MdnsServiceRecord>): MdnsServiceRecord => ({
  type: 'moonraker',
  name: 'Voron @ voron',
  host: 'voron.local',
  port: 7125,
  addresses: ['192.168.1.40'],
  txt: [],
  source_address: '192.168.1.40',
  ...over,
});

type Offered = Omit<DiscoveredNetworkPrinter, 'in_use_by'>;
const offered = (over: Partial<Offered>): Offered => ({
  kind: 'moonraker',
  name: 'Voron @ voron',
  host: 'voron.local',
  port: 7125,
  addresses: ['192.168.1.40'],
  connection_url: 'moonraker://192.168.1.40:7125',
  version: null,
  ...over,
});

const one = (record: MdnsServiceRecord): DiscoveredNetworkPrinter[] => networkPrinters([record], []);

describe('an announced service as a printer to offer', () => {
  const rows: Array<[string, MdnsServiceRecord, Offered | null]> = [
    [
      'Moonraker as it announces itself (uuid, empty https_port, version)',
      answer({ txt: ['uuid=0f4e', 'https_port=', 'version=v0.9.3-12'] }),
      offered({ version: 'v0.9.3-12' }),
    ],
    [
      'Moonraker serving HTTPS: its https_port in the TXT record picks moonraker+https on that port',
      answer({ txt: ['https_port=7130'] }),
      offered({ connection_url: 'moonraker+https://192.168.1.40:7130' }),
    ],
    ['Moonraker on HTTPS port 443 writes no port', answer({ txt: ['https_port=443'] }), offered({ connection_url: 'moonraker+https://192.168.1.40' })],
    ['a https_port that is no port is ignored', answer({ txt: ['https_port=99999'] }), offered({})],
    [
      'OctoPrint behind a path prefix (its TXT path), credentials in the TXT record never shown',
      answer({ type: 'octoprint', name: 'OctoPrint instance on octopi', host: 'octopi.local', port: 5000, txt: ['path=/octoprint/', 'u=admin', 'p=secret', 'version=1.10.2'] }),
      offered({ kind: 'octoprint', name: 'OctoPrint instance on octopi', host: 'octopi.local', port: 5000, connection_url: 'octoprint://192.168.1.40:5000/octoprint', version: '1.10.2' }),
    ],
    [
      'OctoPrint on port 80 (OctoPi behind haproxy) with path / writes neither',
      answer({ type: 'octoprint', port: 80, txt: ['path=/'] }),
      offered({ kind: 'octoprint', port: 80, connection_url: 'octoprint://192.168.1.40' }),
    ],
    [
      'OctoPrint on 443 is https; odd path segments are encoded and dot segments dropped',
      answer({ type: 'octoprint', port: 443, txt: ['path=/../my print/'] }),
      offered({ kind: 'octoprint', port: 443, connection_url: 'octoprint+https://192.168.1.40/my%20print' }),
    ],
    [
      "Prusa's Buddy firmware: _prusalink._tcp on port 80 under its host name, no TXT",
      answer({ type: 'prusalink', name: 'prusa-mk4', host: 'prusa-mk4.local', port: 80 }),
      offered({ kind: 'prusalink', name: 'prusa-mk4', host: 'prusa-mk4.local', port: 80, connection_url: 'prusalink://192.168.1.40' }),
    ],
    [
      'PrusaLink on a Pi on port 8080',
      answer({ type: 'prusalink', name: 'PrusaLink at prusa-mk3:8080', host: 'prusa-mk3.local', port: 8080, txt: ['path=/'] }),
      offered({ kind: 'prusalink', name: 'PrusaLink at prusa-mk3:8080', host: 'prusa-mk3.local', port: 8080, connection_url: 'prusalink://192.168.1.40:8080' }),
    ],
    [
      'the address the answer came from wins over the announced ones (a Pi announces its Docker bridge too)',
      answer({ addresses: ['172.17.0.1', '192.168.1.40'], source_address: '192.168.1.40' }),
      offered({ addresses: ['172.17.0.1', '192.168.1.40'] }),
    ],
    [
      'without a source address: the first IPv4 address',
      answer({ addresses: ['fe80::1', '10.0.0.7'], source_address: null }),
      offered({ addresses: ['fe80::1', '10.0.0.7'], connection_url: 'moonraker://10.0.0.7:7125' }),
    ],
    [
      'only IPv6: a global one in brackets, never a link-local one (it needs a zone)',
      answer({ addresses: ['fe80::1', 'fd00::40'], source_address: null }),
      offered({ addresses: ['fe80::1', 'fd00::40'], connection_url: 'moonraker://[fd00::40]:7125' }),
    ],
    [
      'no address at all: the host name (trailing dot and case dropped)',
      answer({ host: 'Voron.Local.', addresses: [], source_address: null }),
      offered({ addresses: [], connection_url: 'moonraker://voron.local:7125' }),
    ],
    ['no address and a host name that is no host name: nothing to offer', answer({ host: 'a b/c', addresses: [], source_address: null }), null],
    [
      'a host name with URL characters is not used, the address is',
      answer({ host: 'evil.local/@x', addresses: ['10.0.0.8'], source_address: null }),
      offered({ host: '', addresses: ['10.0.0.8'], connection_url: 'moonraker://10.0.0.8:7125' }),
    ],
    [
      'control and bidi characters leave the name; a long name is cut at 100 characters',
      answer({ name: `Vor\u0007on\u202e${'x'.repeat(200)}` }),
      offered({ name: `Voron${'x'.repeat(95)}` }),
    ],
    ['an empty name falls back to the host name', answer({ name: '\u0000' }), offered({ name: 'voron.local' })],
    ['a type we do not drive', answer({ type: 'http' }), null],
    ['the type compares case-insensitively', answer({ type: 'MoonRaker' }), offered({})],
    ['port 0 is no port', answer({ port: 0 }), null],
  ];
  for (const [what, record, expected] of rows) {
    it(what, () => {
      assert.deepEqual(one(record), expected === null ? [] : [{ ...expected, in_use_by: null }]);
    });
  }
});

describe('TXT records', () => {
  it('keys compare case-insensitively, the first of a repeated key wins, a bare key is a flag', () => {
    assert.deepEqual(
      [...parseTxt(['Path=/a', 'path=/b', 'version=1=2', 'flag', '=nokey', 'empty='])],
      [
        ['path', '/a'],
        ['version', '1=2'],
        ['flag', ''],
        ['empty', ''],
      ],
    );
  });
});

describe('the endpoint a stored connection_url connects to', () => {
  const rows: Array<[string, { host: string; port: number } | null]> = [
    ['moonraker://192.168.1.40:7125', { host: '192.168.1.40', port: 7125 }],
    ['moonraker://Voron.Local', { host: 'voron.local', port: 7125 }],
    ['moonraker+https://voron.local', { host: 'voron.local', port: 7130 }],
    ['octoprint://octopi.local/octoprint?fingerprint=ab', { host: 'octopi.local', port: 80 }],
    ['octoprint+https://octopi.local', { host: 'octopi.local', port: 443 }],
    ['prusalink://10.0.0.9', { host: '10.0.0.9', port: 80 }],
    ['prusalink+https://[fd00::9]:8443', { host: 'fd00::9', port: 8443 }],
    ['tcp://10.0.0.5:23', { host: '10.0.0.5', port: 23 }],
    ['tcp://10.0.0.5', null],
    ['serial:///dev/ttyACM0', null],
    ['/dev/ttyACM0', null],
    ['sim://left?speed=10', null],
    ['not a url', null],
  ];
  for (const [url, expected] of rows) {
    it(url, () => assert.deepEqual(endpointOf(url), expected));
  }
});

describe('the list: duplicates, in use, order', () => {
  const voron = answer({});
  const trident = answer({ name: 'Trident @ trident', host: 'trident.local', addresses: ['192.168.1.41'], source_address: '192.168.1.41', txt: ['https_port=7130'] });
  const octopi = answer({ type: 'octoprint', name: 'OctoPrint instance on octopi', host: 'octopi.local', port: 80, addresses: ['192.168.1.50'], source_address: '192.168.1.50' });
  const mk3pi = { host: 'prusa-mk3.local', port: 80, addresses: ['192.168.1.60'], source_address: '192.168.1.60' };
  // PrusaLink on a Pi announces itself as OctoPrint too (for old slicers), on the same port.
  const mk3AsPrusaLink = answer({ type: 'prusalink', name: 'PrusaLink at prusa-mk3', ...mk3pi });
  const mk3AsOctoPrint = answer({ type: 'octoprint', name: 'PrusaLink at prusa-mk3', ...mk3pi });

  it('drops the OctoPrint answer of an endpoint that announces PrusaLink, and a kind answered twice from one endpoint', () => {
    const list = networkPrinters([mk3AsOctoPrint, voron, octopi, mk3AsPrusaLink, { ...voron, name: 'Voron again' }], []);
    assert.deepEqual(
      list.map((p) => [p.kind, p.name]),
      [
        ['moonraker', 'Voron @ voron'],
        ['octoprint', 'OctoPrint instance on octopi'],
        ['prusalink', 'PrusaLink at prusa-mk3'],
      ],
    );
  });

  const uses: Array<[string, string, string | null]> = [
    ['the address and port it is offered with', 'moonraker://192.168.1.40:7125', 'Voron @ voron'],
    ['its host name, any case, the scheme default port', 'moonraker://VORON.local', 'Voron @ voron'],
    ['another scheme at the same host and port (a raw TCP bridge there)', 'tcp://192.168.1.40:7125', 'Voron @ voron'],
    ['its HTTPS port', 'moonraker+https://192.168.1.41:7130', 'Trident @ trident'],
    ['its HTTP port although it offers HTTPS', 'moonraker://trident.local:7125', 'Trident @ trident'],
    ['the OctoPrint of a PrusaLink Pi: the PrusaLink entry is in use', 'octoprint://192.168.1.60', 'PrusaLink at prusa-mk3'],
    ['the right host on another port', 'moonraker://192.168.1.40:7126', null],
    ['another host on the right port', 'moonraker://192.168.1.99:7125', null],
    ['a serial printer', 'serial:///dev/ttyACM0', null],
  ];
  for (const [what, url, name] of uses) {
    it(`in use when a stored connection_url names ${what}`, () => {
      const list = networkPrinters([voron, trident, octopi, mk3AsPrusaLink, mk3AsOctoPrint], [
        { id: 'prt_other', connection_url: 'sim://x' },
        { id: 'prt_it', connection_url: url },
      ]);
      assert.deepEqual(
        list.filter((p) => p.in_use_by !== null).map((p) => [p.name, p.in_use_by]),
        name === null ? [] : [[name, 'prt_it']],
      );
    });
  }
});
