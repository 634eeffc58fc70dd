// The receiver shown in the webhooks guide (docs/webhooks.md, "A receiver in Node"), run as written against real deliveries: it accepts a good signature and refuses a bad one.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ManualClock } from '../../src/clock.js';
import { bearer, mintTestKey, startTestApp } from '../helpers/test-app.js';
import { eventually, type Obj } from './webhook-harness.js';
import { freeTcpPort } from '../helpers/free-tcp-port.js';

function receiverSource(): string {
  const doc = readFileSync(path.resolve('docs', 'webhooks.md'), 'utf8');
  const block = /<!-- receiver:start -->\n```js\n([\s\S]*?)```\n<!-- receiver:end -->/.exec(doc);
  assert.ok(block, 'docs/webhooks.md holds the receiver between its markers');
  return block[1] as string;
}

const freePort = freeTcpPort;

const canConnect = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
    s.on('error', () => resolve(false));
  });

describe('the documented receiver', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'printfarm-receiver-'));
  let child: ChildProcess | undefined;
  after(() => {
    child?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is at most about ten lines, verifies a real delivery and refuses a wrong secret', async () => {
    const source = receiverSource();
    assert.ok(source.trim().split('\n').length <= 10, 'ten lines');
    const file = path.join(dir, 'receiver.mjs');
    writeFileSync(file, source);
    const port = await freePort();
    const secret = 'docs-secret-0123456789';
    child = spawn(process.execPath, [file], { env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: secret }, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    await eventually(() => canConnect(port), 'the receiver to listen', 10_000);

    // The receiver checks the timestamp against the real time, so the server's clock starts there too.
    const t = await startTestApp({ clock: new ManualClock(Date.now()) });
    try {
      const key = await mintTestKey(t);
      const url = `http://127.0.0.1:${port}/hook`;
      const good = (await (await t.request('/v1/webhooks', { method: 'POST', headers: bearer(key, true), body: JSON.stringify({ url, events: ['*'], secret }) })).json()) as Obj;
      const outcome = (await (await t.request(`/v1/webhooks/${good.id}/test`, { method: 'POST', headers: bearer(key) })).json()) as Obj;
      assert.equal(outcome.status_code, 204);
      await eventually(() => output.includes(`${outcome.event_id} webhook.test`), 'the receiver to log the event');

      const bad = (await (await t.request('/v1/webhooks', { method: 'POST', headers: bearer(key, true), body: JSON.stringify({ url, events: ['*'], secret: 'another-secret-123456' }) })).json()) as Obj;
      assert.equal(((await (await t.request(`/v1/webhooks/${bad.id}/test`, { method: 'POST', headers: bearer(key) })).json()) as Obj).status_code, 401);

      // A stale timestamp (a replayed request) is refused too.
      t.clock.advance(-10 * 60 * 1000);
      assert.equal(((await (await t.request(`/v1/webhooks/${good.id}/test`, { method: 'POST', headers: bearer(key) })).json()) as Obj).status_code, 401);
    } finally {
      await t.close();
    }
  });
});
