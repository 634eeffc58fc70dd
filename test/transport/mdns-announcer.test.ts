// The appliance announces itself by mDNS on the loopback interface: _http._tcp and _printfarm._tcp with its port,
// version and dashboard path, found by a real browser; gone after it stops; never sent with mdns off (--no-mdns).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger, type Logger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';
import { createMdnsBrowser } from '../../src/transport/mdns-browser.js';
import { VERSION } from '../../src/version.js';
import { selfAnnouncements } from '../../src/app/self-announcement.js';
import { announceOverMdns } from '../../src/transport/mdns-announcer.js';
import { browseUntil, freeUdpPort, LOOPBACK, prepareLoopbackMdns } from '../helpers/loopback-mdns.js';
import { recordingLogger } from '../helpers/recording-logger.js';

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
  async function serve(mdns: boolean, port: number, { probe = false, logger = silentLogger as Logger } = {}) {
    const dir = await mkdtemp(path.join(tmpdir(), 'pf-announce-'));
    const server = await startServer(
      { host: LOOPBACK, port: 0, dataDir: dir, env: 'test', mdns },
      { logger, mdnsSocket: { interface: LOOPBACK, port, probe } },
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

  it('two servers on one host (the Many boxes setup on one box): the second is "printfarm on HOST (2)" and says so in one line', async () => {
    const port = await freeUdpPort();
    const name = selfAnnouncements(0, hostname(), VERSION)[0]!.name;
    const first = await serve(true, port, { probe: true });
    const logger = recordingLogger();
    let second: Awaited<ReturnType<typeof serve>> | undefined;
    try {
      const firstPort = Number(new URL(first.server.url).port);
      const announced = (found: Array<{ name: string; port: number }>, who: string, at: number): boolean =>
        found.filter((s) => s.name === who && s.port === at).length === 2;
      assert.ok(announced(await browseUntil(port, ['http', 'printfarm'], (f) => announced(f, name, firstPort)), name, firstPort));
      second = await serve(true, port, { probe: true, logger });
      const secondPort = Number(new URL(second.server.url).port);
      const found = await browseUntil(port, ['http', 'printfarm'], (f) => announced(f, `${name} (2)`, secondPort));
      assert.ok(announced(found, `${name} (2)`, secondPort), JSON.stringify(found));
      assert.ok(announced(found, name, firstPort), 'the first keeps its name');
      const mdnsLines = logger.lines.filter((l) => /mDNS/.test(l.msg));
      assert.deepEqual(mdnsLines.map((l) => [l.level, l.fields]), [['info', { name, announced_as: `${name} (2)` }]]);
    } finally {
      await second?.close();
      await first.close();
    }
  });

  it('a service the mDNS library refuses once probing is done (port 0) is one warning, not an unhandled rejection', async () => {
    const logger = recordingLogger();
    const announcer = announceOverMdns([{ type: 'http', name: 'printfarm on nowhere', port: 0, txt: {} }], {
      interface: LOOPBACK,
      port: await freeUdpPort(),
      logger,
    });
    try {
      const deadline = Date.now() + 5000;
      while (announcer.error() === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.match(announcer.error() ?? '', /port/);
      assert.deepEqual(logger.lines.map((l) => [l.level, l.msg]), [['warn', 'not announced on the LAN by mDNS']]);
    } finally {
      await announcer.stop();
    }
  });
});
