// End-to-end helpers: a virtual printer behind a pty (in-process or `printfarm simulate`), recorded events, bounded waits, exact-record checks.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import path from 'node:path';
import { SerialPort } from 'serialport';
import { EventBus, type EventName } from '../../src/events/event-bus.js';
import type { DomainEvents } from '../../src/events/event-types.js';
import { PrinterSession, type PrinterSessionOptions } from '../../src/printers/printer-session.js';
import { xorOf } from '../../src/protocol/framing.js';
import { spacesDroppable } from '../../src/protocol/meatpack.js';
import { parseSimulatorOptions } from '../../src/simulator/simulator-options.js';
import { VirtualPrinter } from '../../src/simulator/virtual-printer.js';

export const MAIN = path.resolve('src/main.ts');

/** Every event of one bus, in order, with a bounded wait for the next matching one. */
export class EventLog {
  readonly events: Array<{ name: EventName; payload: unknown }> = [];
  constructor(readonly bus: EventBus) {
    bus.onAny((payload, name) => this.events.push({ name, payload }));
  }
  names(): string[] {
    return this.events.map((e) => e.name).filter((n) => n !== 'job.progress');
  }
  count(name: EventName): number {
    return this.events.filter((e) => e.name === name).length;
  }
  /** The `nth` (1-based) event of this name, already seen or still to come; rejects after `timeoutMs` naming what came. */
  waitFor<K extends EventName>(name: K, timeoutMs: number, nth = 1, pred: (p: DomainEvents[K]) => boolean = () => true): Promise<DomainEvents[K]> {
    const matches = (): Array<DomainEvents[K]> =>
      this.events.filter((e) => e.name === name && pred(e.payload as DomainEvents[K])).map((e) => e.payload as DomainEvents[K]);
    const seen = matches();
    if (seen.length >= nth) return Promise.resolve(seen[nth - 1]!);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no ${name} #${nth} within ${timeoutMs} ms; events so far: ${this.names().join(', ')}`));
      }, timeoutMs);
      // The bus may call this listener before the onAny recorder: look once the emit is over.
      const off = this.bus.on(name, () =>
        queueMicrotask(() => {
          const all = matches();
          if (all.length < nth) return;
          clearTimeout(timer);
          off();
          resolve(all[nth - 1]!);
        }),
      );
    });
  }
}

/** A session with test-friendly handshake and reconnect timings; autoReconnect stays on unless told. */
export function newSession(url: string, bus: EventBus, opts: Partial<PrinterSessionOptions> = {}): PrinterSession {
  return new PrinterSession({
    printerId: 'prt_e2e',
    url,
    bus,
    drainQuietMs: 100,
    drainMaxMs: 1500,
    reconnect: { initialMs: 200, maxMs: 1000 },
    ...opts,
  });
}

/** Rejects with `what` when `p` does not settle in time: a broken build fails the test instead of hanging it. */
export async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `cond` every 20 ms; throws after `ms` with `what`. */
export async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface PtyPrinter {
  printer: VirtualPrinter;
  port: SerialPort;
  close(): Promise<void>;
}

/**
 * A virtual printer on the device end of a pty pair, read and written through serialport, so the host end sees a real
 * tty. The board powers on at once (its banner waits in the pty) and stays on across host opens, unlike
 * `printfarm simulate --pty`, which powers a fresh board on for each open.
 */
export async function attachPrinter(devicePath: string, query: string, opts: { start?: boolean } = {}): Promise<PtyPrinter> {
  const options = parseSimulatorOptions({ record: '1', ...Object.fromEntries(new URLSearchParams(query)) });
  const port = new SerialPort({ path: devicePath, baudRate: 250000, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  port.on('error', () => undefined);
  const printer = new VirtualPrinter(options, { start: opts.start ?? true });
  printer.onOutput((bytes) => {
    if (port.isOpen) port.write(bytes);
  });
  printer.onDrain(() => port.resume());
  port.on('data', (data: Buffer) => {
    if (!printer.hostWrite(data)) port.pause();
  });
  return {
    printer,
    port,
    close: async () => {
      printer.close();
      if (port.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
    },
  };
}

/** `printfarm simulate --pty PATH ...` as a child process; resolves once it listens. */
export async function startSimulateProcess(ptyPath: string, args: string[], timeoutMs = 20_000): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'simulate', '--pty', ptyPath, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => (out += d));
  child.stderr!.on('data', (d: string) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(killer);
  };
  try {
    await until(() => out.includes('listening on') || child.exitCode !== null, timeoutMs, `printfarm simulate to listen (output: ${out})`);
  } catch (err) {
    await stop();
    throw err;
  }
  if (child.exitCode !== null) throw new Error(`printfarm simulate exited ${child.exitCode}: ${out}`);
  return { child, stop };
}

export interface RecordCheck {
  /** Executed equals expected line for line. */
  exact: boolean;
  /**
   * Indices where a corrupted line ran anyway because its damage is invisible to the XOR checksum (same length, the
   * flipped bits cancel): Marlin's protocol cannot catch these, no host can.
   */
  checksumInvisible: number[];
  /**
   * Indices (in `executed`) of extra lines that are pieces of the next line's frame with neither its `N` nor its `*`
   * left (see isUnframed): a line with neither is a plain command to Marlin, which rejects it as unknown. No checksum
   * scheme can catch it.
   */
  unframed: number[];
  /** First index that differs in another way (a line missing, twice, out of order, or visibly damaged), or -1. */
  firstBadIndex: number;
  describe(): string;
}

/** Compares what the printer ran with what the file says, index by index (order, none twice, none missing). */
export function checkRecord(executed: readonly string[], expected: readonly string[]): RecordCheck {
  const invisible: number[] = [];
  const unframed: number[] = [];
  let firstBad = -1;
  let i = 0;
  let j = 0;
  while (i < executed.length || j < expected.length) {
    const got = executed[i];
    const want = expected[j];
    if (got === want) {
      i++;
      j++;
      continue;
    }
    if (got !== undefined && want !== undefined && checksumInvisible(got, want)) {
      invisible.push(i);
      i++;
      j++;
      continue;
    }
    if (got !== undefined && want !== undefined && isUnframed(got) && executed[i + 1] === want) {
      unframed.push(i);
      i++;
      continue;
    }
    firstBad = i;
    break;
  }
  const exact = firstBad === -1 && invisible.length === 0 && unframed.length === 0;
  return {
    exact,
    checksumInvisible: invisible,
    unframed,
    firstBadIndex: firstBad,
    describe: () =>
      firstBad === -1
        ? `${executed.length} lines, ${invisible.length} checksum-invisible corruptions, ${unframed.length} unframed`
        : `executed ${executed.length} lines, expected ${expected.length}; first difference at ${firstBad}: ` +
          `expected ${JSON.stringify(expected.slice(Math.max(0, firstBad - 1), firstBad + 2))}, ` +
          `got ${JSON.stringify(executed.slice(Math.max(0, firstBad - 1), firstBad + 2))}`,
  };
}

/**
 * The firmware ran `got` in place of `want` and the XOR checksum could not tell: the same bits flipped twice. Either
 * inside the command (same length), or once in the space between `N<n>` and the command, which then arrives as a
 * leading control byte of the command (one character longer). A move sent in MeatPack's no-spaces mode was checked
 * as the firmware read it, without spaces (`G1X1.5E2`), while the record shows it with the spaces the simulator puts
 * back between the words it can still tell apart: such a line is compared without spaces.
 */
function checksumInvisible(got: string, want: string): boolean {
  if (got.length === want.length && xorOf(got) === xorOf(want)) return true;
  if (got.length === want.length + 1 && xorOf(got) === xorOf(' ' + want)) return true;
  if (!spacesDroppable(want)) return false;
  const seen = got.replaceAll(' ', '');
  const sent = want.replaceAll(' ', '');
  return seen.length === sent.length && xorOf(seen) === xorOf(sent);
}

/**
 * `got` is what is left of a damaged frame (of `want`, sent again and run next) once neither its `N` nor its `*` is
 * left: the frame with both destroyed (`^12 G1 X1(45`), its front with the `N` destroyed and the rest cut off by a byte
 * read as a newline (`^12G1`), or its tail cut off that way (`95`, `.211`, `2000(95`). The firmware checks only lines
 * that start with `N` or carry a `*`, takes such a piece as a command of its own and refuses it as unknown. A piece
 * that reads as a command (`G1...`, `M...`, `T...`) is not one of these: the printer may have acted on it.
 */
function isUnframed(got: string): boolean {
  return !got.includes('*') && got[0] !== 'N' && !/^[GMT]\d/i.test(got);
}

/**
 * A virtual printer in this thread behind a TCP port on 127.0.0.1 (a ser2net bridge's shape), so a session in a
 * worker thread can print to it while the test reads what the firmware ran. One board for the life of the helper.
 */
export async function attachTcpPrinter(query: string): Promise<{ printer: VirtualPrinter; port: number; close(): Promise<void> }> {
  const printer = new VirtualPrinter(parseSimulatorOptions({ record: '1', ...Object.fromEntries(new URLSearchParams(query)) }), { start: true });
  let client: Socket | null = null;
  printer.onOutput((bytes) => {
    if (client && !client.destroyed) client.write(bytes);
  });
  printer.onDrain(() => client?.resume());
  const server = createServer((socket) => {
    client?.destroy();
    client = socket;
    socket.on('error', () => undefined);
    socket.on('data', (data: Buffer) => {
      if (!printer.hostWrite(data)) socket.pause();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    printer,
    port: typeof address === 'object' && address ? address.port : 0,
    close: async () => {
      client?.destroy();
      printer.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
