// A server program the stand-in runs (Mosquitto, vsftpd): started, its output kept for the error message, stopped.
import { spawn, type ChildProcess } from 'node:child_process';
import { waitForPort } from './wait-port.js';

export class ChildServer {
  private child: ChildProcess | null = null;
  private output = '';
  private exited: string | null = null;

  constructor(
    private readonly name: string,
    private readonly command: string,
    private readonly args: string[],
    readonly port: number,
  ) {}

  /** Starts it and resolves once its port answers; rejects with its own words when it exits first. */
  async start(): Promise<void> {
    this.output = '';
    this.exited = null;
    const child = spawn(this.command, this.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const keep = (b: Buffer): void => {
      this.output = (this.output + b.toString()).slice(-4000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('error', (err) => (this.exited = `${this.name} could not start: ${err.message}`));
    child.once('exit', (code, signal) => (this.exited = `${this.name} exited (${signal ?? code}): ${this.output.trim()}`));
    try {
      await waitForPort(this.port, 15_000, () => this.exited);
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  /** Stops it (SIGTERM, SIGKILL after 3 s) and resolves once it is gone. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), 3000);
    await gone;
    clearTimeout(force);
  }
}
