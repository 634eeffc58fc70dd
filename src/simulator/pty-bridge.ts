// A virtual printer behind a pseudo-terminal a host opens like /dev/ttyACM0; every open of the port powers it on afresh.
//
// socat holds the pty's master end and relays it to this process over its stdin and stdout. With `wait-slave` socat keeps
// no slave end open itself: it waits until a host opens the pty, and once the host closes it the master reads EIO and
// socat exits. So one socat is one host session: its start is the DTR reset of a real board (a fresh printer boots and
// prints `start`: a halt, temperatures and targets are gone), its exit is the port closing (that printer is switched off).
// A standby socat waits for the next open behind the same path, a symlink this bridge points at the standby's pty.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import type { SimulatorOptions } from './simulator-options.js';
import { VirtualPrinter } from './virtual-printer.js';

/** How often (seconds) a waiting socat looks whether a host opened its pty: the delay before the board powers on. */
const OPEN_POLL_S = 0.02;
/** How long a new socat may take to make its pty. */
const PTY_READY_MS = 5000;

export interface PtyBridgeOptions {
  /** Where hosts open the printer (a symlink to the current pty; it must not exist yet). */
  path: string;
  simulator: SimulatorOptions;
  /** Host sessions (open, close), one line each. */
  log?: (line: string) => void;
}

/** Why a bridge stopped by itself. */
export type PtyBridgeEnd = { reason: 'unplugged' } | { reason: 'failed'; message: string };

export interface PtyBridge {
  readonly path: string;
  /** Settles when the bridge stops by itself: the simulated cable was pulled (unplug_after_lines), or socat failed. */
  readonly ended: Promise<PtyBridgeEnd>;
  /** Hangs up the host, stops socat, removes the link. Safe to call twice. */
  close(): Promise<void>;
}

/** One socat: one pty, waiting for a host and then relaying it, until the host closes the port. */
class SocatPty {
  readonly child: ChildProcess;
  /** The pty's slave device, once socat made it. */
  readonly pts: Promise<string>;
  readonly exited: Promise<void>;
  /** A host opened the pty (socat started relaying). */
  opened = false;
  private log = '';

  constructor(
    private readonly onOpen: (s: SocatPty) => void,
    onData: (s: SocatPty, data: Buffer) => void,
    onExit: (s: SocatPty) => void,
  ) {
    this.child = spawn('socat', ['-d', '-d', `pty,raw,echo=0,wait-slave,pty-interval=${OPEN_POLL_S}`, 'STDIO'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // Writes after socat exited fail with EPIPE: the exit is what reports the end.
    this.child.stdin!.on('error', () => undefined);
    this.exited = new Promise((done) => this.child.once('exit', () => done()));
    let resolvePts!: (p: string) => void;
    let rejectPts!: (e: Error) => void;
    this.pts = new Promise((resolve, reject) => ((resolvePts = resolve), (rejectPts = reject)));
    this.pts.catch(() => undefined);
    const timer = setTimeout(() => rejectPts(new Error(`socat made no pseudo-terminal within ${PTY_READY_MS} ms: ${this.output()}`)), PTY_READY_MS);
    this.child.once('error', (err) => rejectPts(new Error(`socat could not be started: ${err.message}`)));
    let partial = '';
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.log = (this.log + chunk).slice(-4000);
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const pty = / PTY is (\/\S+)/.exec(line);
        if (pty) {
          clearTimeout(timer);
          resolvePts(pty[1]!);
        } else if (line.includes('starting data transfer loop')) this.open();
      }
    });
    this.child.stdout!.on('data', (data: Buffer) => {
      // The host's first bytes may come before socat's log line about it: either one means the port is open.
      this.open();
      onData(this, data);
    });
    this.child.once('exit', () => {
      clearTimeout(timer);
      rejectPts(new Error(`socat exited before it made a pseudo-terminal: ${this.output()}`));
      onExit(this);
    });
  }

  write(bytes: Buffer): void {
    if (this.child.stdin!.writable) this.child.stdin!.write(bytes);
  }

  pause(): void {
    this.child.stdout!.pause();
  }

  resume(): void {
    this.child.stdout!.resume();
  }

  stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }

  output(): string {
    return this.log.trim() || '(no output)';
  }

  private open(): void {
    if (this.opened) return;
    this.opened = true;
    this.onOpen(this);
  }
}

class Bridge implements PtyBridge {
  readonly ended: Promise<PtyBridgeEnd>;
  private endWith!: (end: PtyBridgeEnd) => void;
  private standby: SocatPty | null = null;
  private active: { socat: SocatPty; printer: VirtualPrinter } | null = null;
  private closing: Promise<void> | null = null;
  private linkSeq = 0;

  constructor(
    readonly path: string,
    private readonly simulator: SimulatorOptions,
    private readonly log: (line: string) => void,
  ) {
    this.ended = new Promise((resolve) => (this.endWith = resolve));
  }

  /** Starts a socat that waits for the next host and points the path at its pty. */
  async wait(): Promise<void> {
    const socat = new SocatPty(
      (s) => this.opened(s),
      (s, data) => this.hostBytes(s, data),
      (s) => this.exited(s),
    );
    this.standby = socat;
    const pts = await socat.pts;
    if (this.closing || this.standby !== socat) return;
    // Swapped in one rename: a host opening the path finds the old pty or the new one, never nothing.
    const tmp = `${this.path}.${process.pid}.${++this.linkSeq}.tmp`;
    symlinkSync(pts, tmp);
    renameSync(tmp, this.path);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const socats = [this.standby, this.active?.socat].filter((s): s is SocatPty => s !== null);
      this.active?.printer.close();
      this.active = null;
      this.standby = null;
      await Promise.all(socats.map((s) => s.stop()));
      removeLink(this.path);
    })();
    return this.closing;
  }

  /** A host opened the port: a fresh board powers on for it, and a new standby waits for the next open. */
  private opened(socat: SocatPty): void {
    if (this.closing || socat !== this.standby) return;
    this.standby = null;
    // The path pointed at this pty only: another host still on an older one is cut off, as one serial line has one host.
    const old = this.active;
    if (old) {
      old.printer.close();
      void old.socat.stop();
    }
    const printer = new VirtualPrinter(this.simulator);
    this.active = { socat, printer };
    this.log(`${this.path}: a host opened the port: the printer powers on`);
    printer.onOutput((bytes) => socat.write(bytes));
    // A backlog on the modelled cable holds socat's output, so the host's writes block as on a real USB link.
    printer.onDrain(() => socat.resume());
    printer.onUnplug(() => {
      this.log(`${this.path}: the simulated cable was pulled (unplug_after_lines): hanging up the host`);
      this.endWith({ reason: 'unplugged' });
      void this.close();
    });
    this.wait().catch((err: Error) => this.fail(err.message));
  }

  private hostBytes(socat: SocatPty, data: Buffer): void {
    const a = this.active;
    if (!a || a.socat !== socat) return;
    if (!a.printer.hostWrite(data)) socat.pause();
  }

  private exited(socat: SocatPty): void {
    if (this.closing) return;
    if (this.active?.socat === socat) {
      // The host closed the port: its board is switched off; the next open boots a fresh one.
      this.active.printer.close();
      this.active = null;
      this.log(`${this.path}: the host closed the port: the printer is off`);
    } else if (this.standby === socat) this.fail(`socat exited: ${socat.output()}`);
  }

  private fail(message: string): void {
    if (this.closing) return;
    this.endWith({ reason: 'failed', message });
    void this.close();
  }
}

function removeLink(path: string): void {
  try {
    if (lstatSync(path).isSymbolicLink()) rmSync(path, { force: true });
  } catch {
    // Already gone.
  }
}

function isDanglingLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Makes the first pty and points `path` at it; the printer powers on when a host opens it. Needs socat. */
export async function startPtyBridge(opts: PtyBridgeOptions): Promise<PtyBridge> {
  if (existsSync(opts.path) || isDanglingLink(opts.path)) throw new Error(`${opts.path} already exists: remove it or choose another --pty`);
  const probe = spawnSync('socat', ['-V'], { stdio: 'ignore' });
  if (probe.error !== undefined) throw new Error('socat is not installed: install socat: apt-get install socat');
  const bridge = new Bridge(opts.path, opts.simulator, opts.log ?? (() => {}));
  try {
    await bridge.wait();
  } catch (err) {
    await bridge.close();
    throw new Error(`socat could not create the pseudo-terminal: ${(err as Error).message}`);
  }
  return bridge;
}
