// Runs `printfarm <args>` as a child process (stdin given, then closed) for the console and stream CLI tests.
import { spawn } from 'node:child_process';
import path from 'node:path';

const MAIN = path.resolve('src/main.ts');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A hang guard kills the child after `killAfterMs` (not a timing assertion: a healthy run takes seconds). */
export function runCli(args: string[], stdin = '', killAfterMs = 45_000): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(stdin);
  });
}
