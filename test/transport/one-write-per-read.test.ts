// One write per read: the lines freed by several `ok`s that arrive in one read leave in one write, and a lone `ok` still
// gets its next line written in the same tick. A session over a real TCP link to a firmware played from a script.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { EventBus } from '../../src/events/event-bus.js';
import { PrinterSession } from '../../src/printers/printer-session.js';
import { createTransport } from '../../src/transport/open-transport.js';
import type { Transport, TransportHandlers } from '../../src/transport/transport.js';

/** What the host did, in order: `read` (a chunk of replies reached a line handler), `write n` (one write of n lines), `tick`. */
type Step = string;

/**
 * A Marlin-like firmware on a socket: answers the handshake and commands at once, holds the oks of job lines (G1) until
 * release(n) sends n of them in one socket write (one read on the host's side, the way a busy host finds them).
 */
function scriptedFirmware(): { server: Server; held: () => number; received: string[]; release: (n: number) => void } {
  const received: string[] = [];
  let held = 0;
  let sock: Socket | null = null;
  const server = createServer((s) => {
    sock = s;
    let pending = '';
    s.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const framed = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const cmd = framed.replace(/^N\d+ /, '').replace(/\*\d+$/, '');
        if (cmd === '') continue;
        received.push(cmd);
        if (cmd.startsWith('G1 ')) held++;
        else if (cmd === 'M115') s.write('FIRMWARE_NAME:Marlin 2.1.2 (script)\nCap:AUTOREPORT_TEMP:0\nCap:ADVANCED_OK:0\nok\n');
        else if (cmd === 'M105') s.write('ok T:20.0 /0.0 B:20.0 /0.0\n');
        else s.write('ok\n');
      }
    });
  });
  return {
    server,
    received,
    held: () => held,
    release: (n) => {
      held -= n;
      sock!.write('ok\n'.repeat(n));
    },
  };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('several oks in one read free lines that go out in one write; a lone ok is answered within the same tick', async () => {
  const fw = scriptedFirmware();
  await new Promise<void>((r) => fw.server.listen(0, '127.0.0.1', r));
  const port = (fw.server.address() as { port: number }).port;
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-one-write-'));
  const file = path.join(dir, 'job.gcode');
  await writeFile(file, Array.from({ length: 40 }, (_, i) => `G1 X${i + 1}`).join('\n') + '\n');
  const steps: Step[] = [];
  const session = new PrinterSession({
    printerId: 'prt_write',
    url: `tcp://127.0.0.1:${port}`,
    bus: new EventBus(),
    autoReconnect: false,
    drainQuietMs: 20,
    drainMaxMs: 200,
    temperaturePollMs: 600_000,
    // The real TCP transport, observed: each read that reaches the handler, each write with its line count, and the
    // end of the tick the read came in (a setImmediate queued by the read runs after everything of that tick).
    createTransport: (u, o) => {
      const t: Transport = createTransport(u, o);
      const write = t.write.bind(t);
      t.write = (data) => {
        steps.push(`write ${(typeof data === 'string' ? data : data.toString('latin1')).split('\n').length - 1}`);
        return write(data);
      };
      const open = t.open.bind(t);
      t.open = (h: TransportHandlers) => {
        let inRead = false;
        return open({
          ...h,
          onLine: (line) => {
            if (!inRead) {
              inRead = true;
              steps.push('read');
              setImmediate(() => {
                inRead = false;
                steps.push('tick');
              });
            }
            h.onLine(line);
          },
        });
      };
      return t;
    },
  });
  try {
    await session.connect();
    const job = await session.startJob({ jobId: 'job_w', filePath: file });
    // Marlin's window: the first job lines are written and wait for their oks.
    await until(() => fw.held() >= 4, 'the first window of job lines');
    const window = fw.held();
    await new Promise((r) => setTimeout(r, 50));
    steps.length = 0;

    fw.release(3);
    await until(() => steps.includes('tick') && fw.held() === window, 'the lines three oks free');
    assert.deepEqual(steps, ['read', 'write 3', 'tick'], 'three oks in one read: one write of three lines, before the tick ends');

    steps.length = 0;
    fw.release(1);
    await until(() => steps.includes('tick') && fw.held() === window, 'the line one ok frees');
    assert.deepEqual(steps, ['read', 'write 1', 'tick'], 'a lone ok: its line is written in the same tick, not batched');

    assert.equal(job.snapshot().lines_acked, 4);
  } finally {
    await session.disconnect();
    await new Promise<void>((r) => fw.server.close(() => r()));
    await rm(dir, { recursive: true, force: true });
  }
});
