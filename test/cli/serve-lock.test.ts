// One server per data directory: a second start is refused naming the directory and the holder; a crash frees it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../../src/logger.js';
import { startServer, StartupError } from '../../src/server.js';
import { runCli, startServe, stop, tempDir } from './serve-harness.js';

const serveArgs = (dataDir: string): string[] => ['--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir];
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('data directory lock', () => {
  it('refuses a second server on the same data directory until the first is SIGKILLed', async () => {
    const dataDir = await tempDir();
    const first = await startServe(serveArgs(dataDir));

    const second = runCli(['serve', ...serveArgs(dataDir)]);
    const refused = await second.exited;
    assert.equal(refused.code, 1, second.stderr());
    const lines = second.stderr().trim().split('\n');
    assert.equal(lines.length, 1, second.stderr());
    assert.match(
      lines[0]!,
      new RegExp(`^printfarm serve: the data directory ${escape(dataDir)} is in use by another printfarm process \\(pid ${first.proc.child.pid}\\)`),
    );
    assert.doesNotMatch(second.stdout(), /listening on/);

    // A crash: no chance to clean up. The kernel drops the lock with the process.
    first.proc.child.kill('SIGKILL');
    await first.proc.exited;
    const third = await startServe(serveArgs(dataDir));
    assert.equal((await fetch(`${third.url}/healthz`)).status, 200);
    assert.deepEqual(await stop(third.proc), { code: 0, signal: null });
  });

  it('in one process too, and a clean close frees the directory and removes the pid file', async () => {
    const dataDir = await tempDir();
    const config = { host: '127.0.0.1', port: 0, dataDir, env: 'live' as const };
    const first = await startServer(config, { logger: silentLogger });
    try {
      await assert.rejects(
        startServer(config, { logger: silentLogger }),
        (err: unknown) => err instanceof StartupError && err.message.includes(`(pid ${process.pid})`),
      );
    } finally {
      await first.close();
    }
    assert.ok(!existsSync(path.join(dataDir, 'printfarm.pid')));
    const again = await startServer(config, { logger: silentLogger });
    await again.close();
  });
});
