// The TCP transport against a node:net server on 127.0.0.1 standing in for a ser2net or ESP3D bridge.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { TcpTransport } from '../../src/transport/tcp.transport.js';
import { recorder, waitFor } from '../helpers/transport-recorder.js';

interface Bridge {
  server: Server;
  port: number;
  /** Resolves with the next accepted connection and everything it sends. */
  nextPeer(): Promise<{ socket: Socket; received: () => Buffer }>;
  close(): Promise<void>;
}

async function startBridge(): Promise<Bridge> {
  const waiting: Array<(peer: { socket: Socket; received: () => Buffer }) => void> = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    waiting.shift()?.({ socket, received: () => Buffer.concat(chunks) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return {
    server,
    port: address.port,
    nextPeer: () => new Promise((resolve) => waiting.push(resolve)),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A transport opened to the bridge, with what it reports and the bridge's end of the connection. */
async function openToBridge(bridge: Bridge) {
  const t = new TcpTransport({ host: '127.0.0.1', port: bridge.port });
  const rec = recorder();
  const peerP = bridge.nextPeer();
  await t.open(rec.handlers);
  return { t, rec, peer: await peerP };
}

describe('tcp transport', () => {
  test('lines both ways with CRLF and NUL handling, close twice is safe', async () => {
    const bridge = await startBridge();
    try {
      const { t, rec, peer } = await openToBridge(bridge);
      assert.equal(t.description, `tcp://127.0.0.1:${bridge.port}`);
      t.write('N1 M115*39\n');
      await waitFor(() => peer.received().length >= 11, 'the line at the bridge');
      assert.equal(peer.received().toString(), 'N1 M115*39\n');
      peer.socket.write('\0start\r\nFIRMWARE_NAME:Marlin 2.1.2\r');
      peer.socket.write('\nok\n');
      await waitFor(() => rec.lines.length >= 3, 'three lines');
      assert.deepEqual(rec.lines, ['start', 'FIRMWARE_NAME:Marlin 2.1.2', 'ok']);
      await Promise.all([t.close(), t.close()]);
      assert.deepEqual(rec.closes, [null]);
      assert.throws(() => t.write('M105\n'), /not open/);
    } finally {
      await bridge.close();
    }
  });

  test('backpressure: a burst of at least 1 MB to a slow reader arrives intact with false/onDrain in between', async () => {
    const bridge = await startBridge();
    try {
      const { t, rec, peer } = await openToBridge(bridge);
      peer.socket.pause();
      const chunk = 'N1 G1 X100.000 Y100.000 E1.00000*77\n';
      const parts: string[] = [];
      let falses = 0;
      let size = 0;
      // Loopback kernel buffers take a few MB before write() says false: keep going until it does (capped).
      while (size < 1024 * 1024 || (falses === 0 && size < 64 * 1024 * 1024)) {
        parts.push(chunk);
        size += chunk.length;
        if (!t.write(chunk)) {
          falses++;
          if (falses === 1) peer.socket.resume();
          const seen = rec.drains();
          await waitFor(() => rec.drains() > seen, 'onDrain');
        }
      }
      assert.ok(falses > 0, 'write() reported backpressure');
      await waitFor(() => peer.received().length >= size, 'the whole burst');
      assert.ok(peer.received().equals(Buffer.from(parts.join(''))));
      await t.close();
    } finally {
      await bridge.close();
    }
  });

  test('the bridge closing reports onClose(error) once, after the lines it sent', async () => {
    const bridge = await startBridge();
    try {
      const { t, rec, peer } = await openToBridge(bridge);
      peer.socket.end('ok\nError:Printer halted. kill() called!\nhalf a li');
      await waitFor(() => rec.closes.length > 0, 'onClose');
      assert.equal(t.write('M105\n'), false, 'a lost link takes no more bytes');
      await t.close();
      assert.throws(() => t.write('M105\n'), /not open/);
      assert.equal(rec.closes.length, 1);
      assert.match(String(rec.closes[0]?.message), /^link lost: connection closed by the bridge \(tcp:\/\/127\.0\.0\.1:\d+\)$/);
      assert.deepEqual(rec.lines, ['ok', 'Error:Printer halted. kill() called!']);
    } finally {
      await bridge.close();
    }
  });

  test('a reset connection is reported as lost', async () => {
    const bridge = await startBridge();
    try {
      const { rec, peer } = await openToBridge(bridge);
      peer.socket.resetAndDestroy();
      await waitFor(() => rec.closes.length > 0, 'onClose');
      assert.match(String(rec.closes[0]?.message), /^link lost: (connection reset by the bridge|connection closed by the bridge)/);
      await sleep(50);
      assert.equal(rec.closes.length, 1);
    } finally {
      await bridge.close();
    }
  });

  test('a refused port is a clear rejection and no onClose', async () => {
    const bridge = await startBridge();
    const port = bridge.port;
    await bridge.close();
    const t = new TcpTransport({ host: '127.0.0.1', port });
    const rec = recorder();
    await assert.rejects(t.open(rec.handlers), {
      message: `connection to 127.0.0.1:${port} refused (is the bridge running and the port right?)`,
    });
    await t.close();
    assert.deepEqual(rec.closes, []);
  });

  test('a bridge that never answers times out with a clear message', async () => {
    // A listener whose process never accepts: once its backlog is full the kernel drops further SYNs, so the next
    // connect hangs the way a powered-off bridge's does.
    const script =
      "const s=require('net').createServer();s.listen({port:0,host:'127.0.0.1',backlog:1},()=>{" +
      "process.stdout.write(s.address().port+'\\n');const end=Date.now()+30000;while(Date.now()<end){}})";
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    const fillers: Socket[] = [];
    try {
      const port = await new Promise<number>((resolve) => child.stdout.once('data', (d) => resolve(Number(String(d).trim()))));
      for (let i = 0; i < 2; i++) {
        const s = connect(port, '127.0.0.1');
        s.on('error', () => undefined);
        fillers.push(s);
        await new Promise((resolve) => s.once('connect', resolve));
      }
      const t = new TcpTransport({ host: '127.0.0.1', port, connectTimeoutMs: 300 });
      const rec = recorder();
      await assert.rejects(t.open(rec.handlers), { message: `connection to 127.0.0.1:${port} timed out after 300 ms` });
      assert.deepEqual(rec.closes, []);
    } finally {
      for (const s of fillers) s.destroy();
      child.kill();
      await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)));
      child.stdout.destroy();
    }
  });
});
