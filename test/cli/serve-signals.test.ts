// Stopping a real server process: SIGTERM to the pid of `npm start`, Ctrl-C to its process group, a request that never ends.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { freePort, LISTENING, runProcess, startServe, tempDir, type Exit, type ServeProcess } from './serve-harness.js';

/** Bounds a wait for a process that should be gone, so a server left running fails the test instead of hanging it. */
const GONE_GUARD_MS = 30_000;

async function endsWithin(proc: ServeProcess, what: string): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: the server process was still running after ${GONE_GUARD_MS} ms\n${proc.stdout()}`)),
      GONE_GUARD_MS,
    );
  });
  try {
    return await Promise.race([proc.exited, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** True when nothing accepts connections on the port any more. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

function assertCleanDatabase(dataDir: string): void {
  const db = new BetterSqlite3(path.join(dataDir, 'printfarm.sqlite'));
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
  } finally {
    db.close();
  }
}

/** `npm start` (or another npm script line) in its own process group, as a shell would run it in the foreground. */
async function npmStart(script: string[] = ['start']): Promise<{ proc: ServeProcess; port: number; dataDir: string }> {
  const dataDir = await tempDir();
  const port = await freePort();
  const command = script[0] === 'start' ? [] : ['serve'];
  const args = [...script, '--', ...command, '--host', '127.0.0.1', '--port', String(port), '--data-dir', dataDir];
  const proc = runProcess('npm', args, {}, true);
  await proc.waitForOutput(LISTENING);
  return { proc, port, dataDir };
}

describe('stopping the server', { concurrency: true }, () => {
  for (const script of [['start'], ['run', 'printfarm']]) {
    it(`SIGTERM to the pid of \`npm ${script.join(' ')}\` alone stops the server, frees the port and closes the database`, async () => {
      const { proc, port, dataDir } = await npmStart(script);
      // Only npm's own pid, as `kill <pid>` or a supervisor tracking that pid would do; 'close' waits for every process
      // holding the output pipes, so the server itself must be gone too.
      process.kill(proc.child.pid!, 'SIGTERM');
      await endsWithin(proc, 'kill <npm pid>');
      assert.match(proc.stdout(), /SIGTERM received, shutting down/);
      assert.match(proc.stdout(), /stopped, database closed/);
      assert.ok(await portIsFree(port), 'the port is free again');
      assertCleanDatabase(dataDir);
    });
  }

  it('Ctrl-C (SIGINT to the whole process group of `npm start`) is one clean stop, not a forced exit', async () => {
    const { proc, port } = await npmStart();
    process.kill(-proc.child.pid!, 'SIGINT');
    await endsWithin(proc, 'Ctrl-C');
    assert.match(proc.stdout(), /SIGINT received, shutting down/);
    assert.match(proc.stdout(), /stopped, database closed/);
    assert.doesNotMatch(proc.stderr(), /second stop signal/);
    assert.ok(await portIsFree(port));
  });

  it('a request that never finishes does not hold the stop: the process ends within the deadline, database intact', async () => {
    const dataDir = await tempDir();
    const { proc, url } = await startServe(['--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir]);
    const req = http.request({
      host: '127.0.0.1',
      port: Number(new URL(url).port),
      // Signing in needs no key, so the server reads the body (and only then says 100 Continue: a request it refuses
      // before its body, such as a keyless POST /v1/api-keys, is answered at once and holds nothing).
      method: 'POST',
      path: '/v1/sessions',
      headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', Expect: '100-continue' },
    });
    req.on('error', () => {}); // the server cuts it; that is the point
    req.flushHeaders();
    await once(req, 'continue');
    req.write('{"name":');

    const signalledAt = performance.now();
    proc.child.kill('SIGTERM');
    const exit = await endsWithin(proc, 'stuck request');
    const tookMs = performance.now() - signalledAt;
    assert.deepEqual(exit, { code: 0, signal: null }, proc.stderr());
    assert.match(proc.stderr(), /requests still running after the grace period/);
    assert.match(proc.stdout(), /stopped, database closed/);
    // The promise is 5 s; the loose bound only tells "cut after the short grace" from the old 10 s wait on a busy machine.
    assert.ok(tookMs < 9_000, `stopped after ${Math.round(tookMs)} ms`);
    assertCleanDatabase(dataDir);
  });
});
