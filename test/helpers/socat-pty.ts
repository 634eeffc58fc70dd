// A linked pseudo-terminal pair from socat, so transport tests run real serialport code against a real tty.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface PtyPair {
  /** The end the code under test opens (plays /dev/ttyACM0). */
  hostPath: string;
  /** The other end, opened by the test's scripted peer (plays the printer). */
  devicePath: string;
  /** socat's process, e.g. to kill it mid-stream as a pulled cable. */
  process: ChildProcess;
  /** Kills socat and removes the temp dir; safe to call twice. */
  close(): Promise<void>;
}

/** True when socat can be run; tests that need it skip with a reason otherwise (CI installs it). */
export function hasSocat(): boolean {
  const probe = spawnSync('socat', ['-V'], { stdio: 'ignore' });
  return probe.error === undefined && probe.status === 0;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function createPtyPair(timeoutMs = 5000): Promise<PtyPair> {
  const dir = await mkdtemp(join(tmpdir(), 'printfarm-pty-'));
  const hostPath = join(dir, 'host');
  const devicePath = join(dir, 'device');
  const child = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${hostPath}`, `pty,raw,echo=0,link=${devicePath}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  let spawnError: Error | null = null;
  child.once('error', (err) => {
    spawnError = err;
  });

  let closed: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited(child);
      child.stderr?.destroy();
      await rm(dir, { recursive: true, force: true });
    })();
    return closed;
  };

  // socat creates both links and then logs "starting data transfer loop"; wait for both so no byte is lost.
  const deadline = Date.now() + timeoutMs;
  while (!(existsSync(hostPath) && existsSync(devicePath) && stderr.includes('starting data transfer loop'))) {
    if (spawnError !== null || child.exitCode !== null || Date.now() > deadline) {
      await close();
      const why = spawnError !== null ? String(spawnError) : `socat said: ${stderr.trim() || '(nothing)'}`;
      throw new Error(`could not create a pty pair with socat: ${why}`);
    }
    await sleep(10);
  }
  return { hostPath, devicePath, process: child, close };
}
