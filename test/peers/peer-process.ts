// Starts one of the peers kit's run scripts in a process group of its own, waits until it serves, and stops the group.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface PeerProcess {
  readonly name: string;
  child: ChildProcess;
  output(): string;
  /** TERM to the whole group (the script stops its children), KILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** KILL to the whole group: the peer vanishes as a pulled plug would. */
  kill(): Promise<void>;
}

const running = new Set<PeerProcess>();
process.once('exit', () => {
  for (const p of running) signalGroup(p.child, 'SIGKILL');
});

function signalGroup(child: ChildProcess, sig: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, sig);
  } catch {
    // the group is gone already
  }
}

export function startPeer(name: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): PeerProcess {
  const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out = (out + d).slice(-20_000)));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out = (out + d).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const ended = (ms: number): Promise<boolean> => Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
  const peer: PeerProcess = {
    name,
    child,
    output: () => out,
    async stop(graceMs = 25_000) {
      signalGroup(child, 'SIGTERM');
      if (!(await ended(graceMs))) signalGroup(child, 'SIGKILL');
      await ended(5000);
      signalGroup(child, 'SIGKILL'); // stragglers the script left behind
      running.delete(peer);
    },
    async kill() {
      signalGroup(child, 'SIGKILL');
      await ended(5000);
      running.delete(peer);
    },
  };
  running.add(peer);
  return peer;
}

/** Polls `check` every 200 ms until it holds; fails naming `what` after `timeoutMs`, with the peer's last output. */
export async function untilPeer(peer: PeerProcess, what: string, check: () => boolean | Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (peer.child.exitCode !== null || peer.child.signalCode !== null) throw new Error(`${peer.name} ended before ${what}:\n${peer.output()}`);
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${peer.name}: no ${what} after ${timeoutMs} ms:\n${peer.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export const fileExists = (p: string) => (): boolean => existsSync(p);

/** True once `url` answers with a status below 500. */
export const answers = (url: string, headers: Record<string, string> = {}) => async (): Promise<boolean> => {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(3000) });
  await res.arrayBuffer();
  return res.status < 500;
};
