// GET /v1/printers/discover with real mDNS responders on the loopback interface: network printers of each kind, the
// connection_url to use, which printer uses each, the brief cache, and the browse length parameter.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Service } from 'bonjour-service';
import { ManualClock, isoTime } from '../../src/clock.js';
import { MDNS_CACHE_MS, NetworkDiscovery } from '../../src/printers/network-discovery.js';
import { createMdnsBrowser } from '../../src/transport/mdns-browser.js';
import { freeUdpPort, LOOPBACK, LoopbackResponder, prepareLoopbackMdns, type LoopbackMdns } from '../helpers/loopback-mdns.js';
import { startPrintersApp, type PrintersApp } from './printers-api-harness.js';

const loopback: LoopbackMdns = await prepareLoopbackMdns();

describe('network printer discovery over mDNS on the loopback interface', { skip: loopback.skip ?? false }, () => {
  let root: string;
  let app: PrintersApp;
  let responder: LoopbackResponder;
  let octoprint: Service;
  // Where the Voron's "Moonraker" listens: a socket that never answers, so a printer stored on it connects to nothing.
  const silent = net.createServer(() => {});
  let voronPort: number;
  const clock = new ManualClock();

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pf-net-disc-'));
    await new Promise<void>((resolve) => silent.listen(0, LOOPBACK, resolve));
    voronPort = (silent.address() as net.AddressInfo).port;
    const port = await freeUdpPort();
    responder = new LoopbackResponder(port);
    // As each announces itself (see src/printers/network-printers.ts for the sources).
    responder.publish({ name: 'Voron @ voron', type: 'moonraker', port: voronPort, host: 'voron.local', txt: { uuid: '0f4e', https_port: '', version: 'v0.9.3-12' } });
    responder.publish({ name: 'Trident @ trident', type: 'moonraker', port: 7125, host: 'trident.local', txt: { uuid: '77aa', https_port: '7130' } });
    octoprint = responder.publish({
      name: 'OctoPrint instance on octopi',
      type: 'octoprint',
      port: 5000,
      host: 'octopi.local',
      txt: { path: '/octoprint/', u: 'admin', p: 'secret-password', version: '1.10.2', uuid: 'c0ff' },
    });
    responder.publish({ name: 'prusa-mk4', type: 'prusalink', port: 80, host: 'prusa-mk4.local' });
    // PrusaLink on a Pi: as PrusaLink, as a web server and as OctoPrint (for old slicers), all on one port.
    for (const type of ['prusalink', 'http', 'octoprint']) {
      responder.publish({ name: 'PrusaLink at prusa-mk3:8080', type, port: 8080, host: 'prusa-mk3.local', txt: { path: '/' } });
    }
    app = await startPrintersApp({
      clock,
      printers: {
        // No serial ports: an empty /dev and /sys.
        discovery: { devRoot: root, sysRoot: root, useUdev: false },
        mdns: new NetworkDiscovery({ browser: createMdnsBrowser({ interface: LOOPBACK, port }), clock }),
      },
    });
  });
  after(async () => {
    await app?.close();
    await responder?.close();
    silent.close();
    await rm(root, { recursive: true, force: true });
    loopback.restore();
  });

  const discover = async (query = '?mdns_browse_ms=1000') => {
    const res = await app.call('GET', `/v1/printers/discover${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { data: unknown[]; network: Array<Record<string, unknown>>; mdns: Record<string, unknown> };
  };
  const withoutAddresses = (network: Array<Record<string, unknown>>) => network.map(({ addresses: _a, ...rest }) => rest);

  it('lists each kind with the connection_url to use, never the credentials, then which printer uses one', async () => {
    const first = await discover();
    assert.deepEqual(first.data, []);
    assert.deepEqual(first.mdns, { enabled: true, browse_ms: 1000, browsed_at: isoTime(clock.now()), cached: false, error: null });
    assert.deepEqual(withoutAddresses(first.network), [
      { kind: 'moonraker', name: 'Trident @ trident', host: 'trident.local', port: 7125, connection_url: 'moonraker+https://127.0.0.1:7130', version: null, in_use_by: null },
      { kind: 'moonraker', name: 'Voron @ voron', host: 'voron.local', port: voronPort, connection_url: `moonraker://127.0.0.1:${voronPort}`, version: 'v0.9.3-12', in_use_by: null },
      { kind: 'octoprint', name: 'OctoPrint instance on octopi', host: 'octopi.local', port: 5000, connection_url: 'octoprint://127.0.0.1:5000/octoprint', version: '1.10.2', in_use_by: null },
      { kind: 'prusalink', name: 'prusa-mk4', host: 'prusa-mk4.local', port: 80, connection_url: 'prusalink://127.0.0.1', version: null, in_use_by: null },
      { kind: 'prusalink', name: 'PrusaLink at prusa-mk3:8080', host: 'prusa-mk3.local', port: 8080, connection_url: 'prusalink://127.0.0.1:8080', version: null, in_use_by: null },
    ]);
    // The addresses are what the responder's machine announces (its non-loopback interfaces): the same for all here.
    for (const p of first.network) assert.deepEqual(p.addresses, first.network[0]!.addresses);
    assert.ok(!JSON.stringify(first).includes('secret-password'));

    // A printer on the Voron's address and port (a raw TCP link until the Moonraker driver is wired: any scheme counts).
    const voron = await app.create({ name: 'voron', connection_url: `tcp://127.0.0.1:${voronPort}` });
    const second = await discover();
    assert.equal(second.mdns.cached, true, 'a refresh within the cache time does not browse again');
    assert.deepEqual(
      second.network.map((p) => [p.name, p.in_use_by]),
      first.network.map((p) => [p.name, p.name === 'Voron @ voron' ? voron.id : null]),
    );
  });

  it('reuses a browse for 10 s unless asked to listen longer, then browses again', async () => {
    octoprint.stop?.();
    const cached = await discover();
    assert.equal(cached.mdns.cached, true);
    assert.ok(cached.network.some((p) => p.kind === 'octoprint'), 'the cached list still has the OctoPrint that left');

    const longer = await discover('?mdns_browse_ms=1200');
    assert.deepEqual([longer.mdns.cached, longer.mdns.browse_ms], [false, 1200]);
    assert.deepEqual(
      longer.network.map((p) => p.name),
      ['Trident @ trident', 'Voron @ voron', 'prusa-mk4', 'PrusaLink at prusa-mk3:8080'],
    );

    const shorter = await discover('?mdns_browse_ms=300');
    assert.deepEqual([shorter.mdns.cached, shorter.mdns.browse_ms], [true, 1200], 'a shorter ask takes the longer browse');
    clock.advance(MDNS_CACHE_MS);
    const expired = await discover('?mdns_browse_ms=300');
    assert.deepEqual([expired.mdns.cached, expired.mdns.browse_ms, expired.mdns.browsed_at], [false, 300, isoTime(clock.now())]);
  });

  it('refuses a browse length out of range or not a number, and unknown parameters', async () => {
    for (const [query, message] of [
      ['?mdns_browse_ms=199', 'query parameter mdns_browse_ms: must be an integer from 200 to 10000'],
      ['?mdns_browse_ms=10001', 'query parameter mdns_browse_ms: must be an integer from 200 to 10000'],
      ['?mdns_browse_ms=1.5', 'query parameter mdns_browse_ms: must be an integer from 200 to 10000'],
      ['?mdns_browse_ms=abc', 'query parameter mdns_browse_ms: must be an integer from 200 to 10000'],
      ['?mdns=1', 'unknown query parameter "mdns"'],
    ] as const) {
      const res = await app.call('GET', `/v1/printers/discover${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.message, message, query);
    }
  });
});
