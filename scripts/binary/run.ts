// Runs one build tool as a child process; its output goes to a log file, and the log's tail becomes the error when it fails.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Full output lands here; without it the output is kept in memory for the error message only. */
  logFile?: string;
}

/** Resolves with stdout when the command exits 0; rejects with the command line and the last lines of its output. */
export function run(command: string, args: string[], options: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    if (options.logFile) mkdirSync(path.dirname(options.logFile), { recursive: true });
    const log = options.logFile ? createWriteStream(options.logFile) : undefined;
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const all: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      out.push(chunk);
      all.push(chunk);
      log?.write(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      all.push(chunk);
      log?.write(chunk);
    });
    child.on('error', (err) => {
      log?.end();
      reject(new Error(`cannot run ${command}: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      const finish = () => {
        if (code === 0) return resolve(Buffer.concat(out).toString('utf8'));
        const text = options.logFile ? readFileSync(options.logFile, 'utf8') : Buffer.concat(all).toString('utf8');
        const tail = text.trimEnd().split('\n').slice(-25).join('\n');
        const where = options.logFile ? ` (full log: ${options.logFile})` : '';
        reject(new Error(`${command} ${args.join(' ')} failed with ${signal ?? `exit status ${code}`}${where}\n${tail}`));
      };
      if (log) log.end(finish);
      else finish();
    });
  });
}
