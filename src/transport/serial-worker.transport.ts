// A serial printer for a session in a worker thread: the addon opens and configures the port, the worker's own loop reads
// and writes it. node-serialport cannot be used there: its poller (bindings-cpp poller.cpp) waits on uv_default_loop().
import { constants, open as openFd, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { ReadStream } from 'node:tty';
// The addon's calls one by one, without LinuxBinding: constructing that starts a Poller on uv_default_loop().
import { asyncClose, asyncGet, asyncOpen, asyncSet, asyncUpdate } from '@serialport/bindings-cpp/dist/load-bindings.js';
import { enableLowLatency, type SerialLineControl } from './serial-low-latency.js';
import { linkLost, openFailure } from './serial-errors.js';
import { SerialLinkTransport } from './serial-link.transport.js';
import type { TransportHandlers } from './transport.js';

/**
 * What node-serialport opens a port with (its LinuxBinding defaults, as the main-thread transport gets them): 8N1, raw
 * in and out, no echo, no flow control, a read returns as soon as one byte is there, DTR dropped on close (hupcl) so
 * the next open resets the board, and an exclusive flock.
 */
const OPEN_SETTINGS = { dataBits: 8, stopBits: 1, parity: 'none', rtscts: false, xon: false, xoff: false, xany: false, hupcl: true, lock: true, vmin: 1, vtime: 0 };

/**
 * With the kernel's output buffer full (the printer stopped reading) bytes wait here and are retried this often: the
 * worker's loop has no writable-poll for a tty fd we can reach from JS, and with the protocol's send window a full
 * buffer is rare, so a short timer costs nothing in normal streaming.
 */
const WRITE_RETRY_MS = 2;

type Addon = (...args: unknown[]) => Promise<unknown>;
const call = (fn: unknown, ...args: unknown[]): Promise<unknown> => (fn as Addon)(...args);

const openPlain = (path: string): Promise<number> =>
  promisify(openFd)(path, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);

/** A tty hang-up (end of input): the device node went away under the open port. */
const hangup = (): Error => Object.assign(new Error('the tty hung up'), { disconnected: true });

export class WorkerSerialTransport extends SerialLinkTransport {
  private fd: number | null = null;
  private input: ReadStream | null = null;
  /** Bytes the kernel had no room for yet, oldest first. */
  private pending: Buffer[] = [];
  private retry: NodeJS.Timeout | null = null;

  async open(handlers: TransportHandlers): Promise<void> {
    if (this.input !== null && !this.finished) throw new Error(`serial port ${this.path} is already open`);
    this.baud = this.baudCandidates[0] ?? this.baud;
    // The addon's open runs on the thread pool and answers on this thread's loop: nothing of it touches the main loop.
    let fd: number;
    try {
      fd = (await call(asyncOpen, this.path, { ...OPEN_SETTINGS, baudRate: this.baud })) as number;
    } catch (err) {
      throw openFailure(this.path, err as Error);
    }
    let input: ReadStream;
    try {
      // The reads go through a tty handle on this thread's loop (epoll), so a reply wakes this worker only. Not on `fd`:
      // libuv reopens a tty it is given (ttyname, then dup2 over the fd), which would close the description that holds
      // the flock. So the handle gets an fd of its own and `fd` stays ours: the lock, the ioctls and the writes.
      input = new ReadStream(await openPlain(this.path));
    } catch (err) {
      await call(asyncClose, fd).catch(() => undefined);
      throw openFailure(this.path, err as Error);
    }
    this.fd = fd;
    this.input = input;
    this.pending = [];
    this.begin(handlers);

    let inputError: Error | null = null;
    const current = (): boolean => this.input === input;
    input.on('error', (err: Error) => {
      inputError ??= err;
    });
    // Unplugged or pty closed: the read fails (EIO) or ends (hang-up); either way the handle closes after.
    input.on('end', () => {
      inputError ??= hangup();
    });
    input.on('close', () => {
      if (current()) this.lost(inputError ?? hangup());
    });
    this.readLinesFrom(input, handlers);

    // Never part of success: pseudo-terminals and many adapters refuse these ioctls ("Inappropriate ioctl for device").
    this.lowLatency = await enableLowLatency(this.lineControl(fd), this.path);
  }

  /**
   * Throws when the link was never opened or close() was called: that is a caller bug. After the link is lost it
   * returns false and drops the bytes, since the printer is gone and onClose is on its way (or already delivered).
   */
  write(data: string | Buffer): boolean {
    const fd = this.fd;
    if (this.input === null || this.closeRequested) throw new Error(`serial link ${this.path} is not open`);
    if (this.finished || fd === null) return false;
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    // Behind bytes still waiting: queue, never overtake.
    if (this.pending.length > 0) {
      this.pending.push(bytes);
      return false;
    }
    return this.writeNow(fd, bytes);
  }

  /**
   * Switches the open port to another rate in place (tcsetattr, no close): DTR is not toggled, so the board does not
   * reset. The printer session calls this between handshake attempts when the URL named no baud.
   */
  async setBaudRate(baud: number): Promise<void> {
    const fd = this.fd;
    if (fd === null || this.finished) throw new Error(`serial link ${this.path} is not open`);
    try {
      await call(asyncUpdate, fd, { baudRate: baud });
    } catch (err) {
      throw new Error(`cannot set ${this.path} to ${baud} baud: ${(err as Error).message}`);
    }
    this.baud = baud;
  }

  protected release(done: () => void): void {
    this.stopRetry();
    this.pending = [];
    const input = this.input;
    const closed = (): void => {
      void this.closeFd().then(done);
    };
    if (input === null || input.destroyed) {
      closed();
      return;
    }
    input.once('close', closed);
    input.destroy();
  }

  /** Closes the addon's fd once (the last close drops DTR: hupcl); errors leave nothing to recover, it is released. */
  private async closeFd(): Promise<void> {
    const fd = this.fd;
    this.fd = null;
    if (fd !== null) await call(asyncClose, fd).catch(() => undefined);
  }

  /** Writes what the kernel takes now (the fd is non-blocking); the rest waits for the retry timer. */
  private writeNow(fd: number, bytes: Buffer): boolean {
    let written = 0;
    try {
      written = writeSync(fd, bytes);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') {
        this.lost(err as Error);
        return false;
      }
    }
    if (written === bytes.length) return true;
    this.pending.unshift(bytes.subarray(written));
    this.retry ??= setTimeout(() => this.flushPending(), WRITE_RETRY_MS);
    return false;
  }

  private flushPending(): void {
    this.retry = null;
    const fd = this.fd;
    if (fd === null || this.finished) return;
    for (let next = this.pending.shift(); next !== undefined; next = this.pending.shift()) {
      if (!this.writeNow(fd, next)) return;
    }
    this.handlers?.onDrain();
  }

  private stopRetry(): void {
    if (this.retry !== null) clearTimeout(this.retry);
    this.retry = null;
  }

  private lineControl(fd: number): SerialLineControl {
    return {
      // node-serialport's defaults for the lines not named, so both transports ask the driver the same thing.
      set: (flags) => call(asyncSet, fd, { brk: false, cts: false, dtr: true, rts: true, ...flags }).then(() => true, () => false),
      lowLatency: () => call(asyncGet, fd).then((s) => (s as { lowLatency?: boolean } | undefined)?.lowLatency === true, () => false),
    };
  }

  /** The port went away without close(): report it once, worded as the main-thread transport words it. */
  private lost(cause: Error | null): void {
    if (this.closing) return;
    this.stopRetry();
    this.pending = [];
    if (this.input && !this.input.destroyed) this.input.destroy();
    void this.closeFd();
    void this.finish(linkLost(this.path, cause));
  }
}
