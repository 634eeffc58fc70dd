// The real server (startServer) with the event machinery: a live stream does not hold up shutdown, and deliveries
// left pending when it stops go out after the next start on the same data directory.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';
import { createWebhook } from '../../src/webhooks/webhooks.service.js';
import { eventually, openStream, startReceiver } from '../webhooks/webhook-harness.js';

describe('server lifecycle with events', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'printfarm-events-server-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const config = { host: '127.0.0.1', port: 0, dataDir: dir, env: 'live' as const };

  it('ends live streams on close and sends what was left pending after the next start', async () => {
    const rx = await startReceiver((_r, i) => (i === 0 ? { status: 200, hang: true } : { status: 204 }));
    try {
      const first = await startServer(config, { logger: silentLogger });
      const key = first.initialAdminKey as string;
      const stream = await openStream(first.url, '/v1/events', { Authorization: `Bearer ${key}` });
      await createWebhook(first.deps, { url: rx.url, events: ['printer.*'] });
      const event = await first.deps.events.recordNow('printer.online', { id: 'prt_1' });
      await eventually(() => stream.messages.length === 1 && rx.received.length === 1, 'the stream and the first (hanging) attempt');

      const started = Date.now();
      await first.close();
      // Well under the 10 s request grace: the stream did not keep the server open.
      assert.ok(Date.now() - started < 8000, `close took ${Date.now() - started} ms`);
      await stream.ended;
      assert.equal(stream.messages.at(-1)?.event, 'end');

      const second = await startServer(config, { logger: silentLogger });
      try {
        await eventually(() => rx.received.length === 2, 'the delivery after restart');
        assert.equal(rx.received[1]!.headers['x-event-id'], event.id);
      } finally {
        await second.close();
      }
    } finally {
      await rx.close();
    }
  });
});
