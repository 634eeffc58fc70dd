// The appliance announces itself by mDNS on the loopback interface: _http._tcp and _printfarm._tcp with its port,
// version and dashboard path, found by a real browser; gone after it stops; never sent with mdns off (--no-mdns).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';
import { createMdnsBrowser } from '../../src/transport/mdns-browser.js';
import { VERSION } from '../../src/version.js';
import { selfAnnouncements } from '../../src/app/self-announcement.js';
import { freeUdpPort, LOOPBACK, prepareLoopbackMdns } from '../helpers/loopback-mdns.js';

const loopback = await prepareLoopbackMdns();
after(() => loopback.restore());

it('the announcements: one name, both types, version and dashboard path in TXT; a long host name is cut to 63 bytes', () => {
  assert.deepEqual(selfAnnouncements(8080, 'farm-pi.lan', '1.2.3'), [
    { type: 'http', name: 'printfarm on farm-pi', port: 8080, txt: { version: '1.2.3', path: '/' } },
    { type: 'printfarm', name: 'printfarm on farm-pi', port: 8080, txt: { version: '1.2.3', path: '/' } },
  ]);
  assert.equal(selfAnnouncements(1, 'x'.repeat(100), '1')[0]!.name.length, 63);
});

describe('self-announcement over mDNS on the loopback interface', { skip: loopback.skip ?? false }, () => {
  async function serve(mdns: boolean, port: number) {
    const dir = await mkdtemp(path.join(tmpdir(), 'pf-announce-'));
    const server = await startServer(
      { host: LOOPBACK, port: 0, dataDir: dir, env: 'test', mdns },
      { logger: silentLogger, mdnsSocket: { interface: LOOPBACK, port, probe: false } },
    );
    return { server, close: async () => { await server.close(); await rm(dir, { recursive: true, force: true }); } };
  }

  it('a browser finds _http._tcp and _printfarm._tcp with the server port, version and path; after close they are gone', async () => {
    const port = await freeUdpPort();
    const { server, close } = await serve(true, port);
    const serverPort = Number(new URL(server.url).port);
    try {
      const { services, error } = await createMdnsBrowser({ interface: LOOPBACK, port }).browse(['http', 'printfarm'], 1500);
      assert.equal(error, null);
      for (const type of ['http', 'printfarm']) {
        const found = services.find((s) => s.type === type && s.name.startsWith('printfarm on '));
        assert.ok(found, `${type}: ${JSON.stringify(services)}`);
        assert.equal(found.port, serverPort);
        assert.deepEqual([...found.txt].sort(), [`path=/`, `version=${VERSION}`]);
      }
    } finally {
      await close();
    }
    const later = await createMdnsBrowser({ interface: LOOPBACK, port }).browse(['http', 'printfarm'], 800);
    assert.deepEqual(later.services, [], 'nothing answers once the server stopped');
  });

  it('with mdns off (--no-mdns, PRINTFARM_MDNS=0) nothing is announced', async () => {
    const port = await freeUdpPort();
    const { close } = await serve(false, port);
    try {
      const { services } = await createMdnsBrowser({ interface: LOOPBACK, port }).browse(['http', 'printfarm'], 800);
      assert.deepEqual(services, []);
    } finally {
      await close();
    }
  });
});
