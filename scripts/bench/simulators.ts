// Runs `printfarm simulate --tcp 0 --count N` as a child process for benchmarks: the simulated printers' CPU is not
// the measured host's, and the child dies with the script whatever happens to it.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

export interface SimChild {
  pid: number;
  ports: number[];
  /** utime + stime of the child so far, in seconds (null without /proc). */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
}

const CLK_TCK = ((): number => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return Number.isInteger(n) && n > 0 ? n : 100;
})();

/** `printfarm simulate --tcp 0 --count N` as a child, so the simulators' CPU is not the host's; resolves once all listen. */
export async function spawnSimulators(count: number, simArgs: string[]): Promise<SimChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('src/main.ts'), 'simulate', '--tcp', '0', '--count', String(count), ...simArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Whatever happens to this script (an exception, process.exit, a signal), the simulators go with it.
  const killNow = (): void => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  const onSignal = (signal: NodeJS.Signals): void => {
    killNow();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.on('exit', killNow);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const force = setTimeout(killNow, 5000);
    await exited;
    clearTimeout(force);
    process.off('exit', killNow);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-4000)));
  const ports = (): number[] => [...stdout.matchAll(/listening on tcp:\/\/127\.0\.0\.1:(\d+)$/gm)].map((m) => Number(m[1]));
  const deadline = performance.now() + 30_000;
  while (ports().length < count) {
    if (child.exitCode !== null || performance.now() > deadline) {
      await stop();
      throw new Error(`printfarm simulate --tcp did not start ${count} printers: ${stderr.trim() || stdout.trim() || '(no output)'}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const pid = child.pid!;
  return {
    pid,
    ports: ports(),
    cpuSeconds: () => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        // Fields after the parenthesised command name start at field 3 (state); utime and stime are fields 14 and 15.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
      } catch {
        return null;
      }
    },
    stop,
  };
}

