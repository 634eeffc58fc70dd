// A printer on a USB (or any tty) serial port through node-serialport, with Linux low-latency mode where the adapter allows it.
import { SerialPort } from 'serialport';
import { enableLowLatency, NO_LOW_LATENCY, type LowLatencyMode } from './serial-low-latency.js';
import { StreamTransport } from './stream-transport.js';
import type { TransportHandlers } from './transport.js';

export interface SerialTransportOptions {
  /** Device path, e.g. /dev/ttyACM0 or a /dev/serial/by-id/ link. */
  path: string;
  /** Rates to try in order; the first is used by open(). One entry when the URL named a baud. */
  baudCandidates: readonly number[];
}

/** Turns node-serialport's open errors into messages a farm operator can act on. */
function openFailure(path: string, err: Error): Error {
  const msg = err.message;
  let why = msg;
  if (/No such file or directory|ENOENT/i.test(msg)) why = 'no such device (unplugged, or a wrong path?)';
  else if (/Permission denied|EACCES/i.test(msg)) why = 'permission denied (add the service user to the "dialout" group)';
  else if (/Resource temporarily unavailable|Cannot lock port|EBUSY|EAGAIN/i.test(msg)) why = 'port is in use by another program';
  else if (/Not a typewriter|Inappropriate ioctl/i.test(msg)) why = 'not a serial device';
  return new Error(`cannot open serial port ${path}: ${why}`, { cause: err });
}

/** Errors that mean the device node is gone (USB unplugged, pty master closed), whatever the call that saw it. */
function isDisconnect(err: Error & { disconnected?: boolean; code?: string }): boolean {
  if (err.disconnected === true) return true;
  if (err.code !== undefined && ['EIO', 'ENXIO', 'ENODEV', 'EBADF'].includes(err.code)) return true;
  return /\b(EIO|ENXIO|ENODEV|EBADF)\b|i\/o error|bad file descriptor|no such device/i.test(err.message);
}

export class SerialTransport extends StreamTransport {
  readonly description: string;
  readonly baudCandidates: readonly number[];
  /** What low-latency tuning the last open obtained (nothing on pseudo-terminals and non-Linux hosts). */
  lowLatency: LowLatencyMode = { ...NO_LOW_LATENCY };

  private readonly path: string;
  private baud: number;
  private port: SerialPort | null = null;

  constructor(opts: SerialTransportOptions) {
    super();
    const first = opts.baudCandidates[0];
    if (first === undefined) throw new Error('serial transport needs at least one baud rate');
    const bad = opts.baudCandidates.find((b) => !Number.isSafeInteger(b) || b <= 0);
    if (bad !== undefined) throw new Error(`serial transport: ${bad} is not a baud rate`);
    this.path = opts.path;
    this.baudCandidates = [...opts.baudCandidates];
    this.baud = first;
    const named = this.baudCandidates.length === 1 ? `?baud=${first}` : '';
    this.description = `serial://${opts.path}${named}`;
  }

  /** The rate the port is set to now. */
  get baudRate(): number {
    return this.baud;
  }

  async open(handlers: TransportHandlers): Promise<void> {
    if (this.port !== null && !this.finished) throw new Error(`serial port ${this.path} is already open`);
    // lock: an exclusive flock, so a second session (or another host program) cannot share the printer.
    this.baud = this.baudCandidates[0] ?? this.baud;
    const port = new SerialPort({ path: this.path, baudRate: this.baud, autoOpen: false, lock: true });
    await new Promise<void>((resolve, reject) => {
      port.open((err) => (err ? reject(openFailure(this.path, err)) : resolve()));
    });
    this.port = port;
    this.begin(handlers);

    port.on('drain', () => this.handlers?.onDrain());
    let portError: Error | null = null;
    let closeTried = false;
    // A port from an earlier open() is never allowed to report into this one.
    const current = (): boolean => this.port === port;
    port.on('close', (err: Error | null) => {
      if (current()) this.lost(err ?? portError);
    });
    port.on('error', (err: Error) => {
      portError ??= err;
      if (!current()) return;
      // After a failed read or write the stream is already closing the port itself, and 'close' follows.
      if (port.closing) return;
      if (port.isOpen && !closeTried && !this.closing) {
        closeTried = true;
        port.close((closeErr) => {
          if (closeErr && current()) this.lost(portError);
        });
        return;
      }
      this.lost(portError);
    });
    this.readLinesFrom(port, handlers);

    // Never part of success: pseudo-terminals and many adapters refuse these ioctls ("Inappropriate ioctl for device").
    this.lowLatency = await enableLowLatency(port, this.path);
  }

  /**
   * Throws when the link was never opened or close() was called: that is a caller bug. After the link is lost it
   * returns false and drops the bytes, since the printer is gone and onClose is on its way (or already delivered).
   */
  write(data: string | Buffer): boolean {
    const port = this.port;
    if (port === null || this.closeRequested) throw new Error(`serial link ${this.path} is not open`);
    if (this.finished) return false;
    return port.write(data);
  }

  /**
   * Switches the open port to another rate in place (tcsetattr, no close): DTR is not toggled, so the board does not
   * reset. The printer session calls this between handshake attempts when the URL named no baud.
   */
  async setBaudRate(baud: number): Promise<void> {
    const port = this.port;
    if (port === null || this.finished) throw new Error(`serial link ${this.path} is not open`);
    await new Promise<void>((resolve, reject) => {
      port.update({ baudRate: baud }, (err) => (err ? reject(new Error(`cannot set ${this.path} to ${baud} baud: ${err.message}`)) : resolve()));
    });
    this.baud = baud;
  }

  protected release(done: () => void): void {
    // Errors from close itself leave nothing to recover: the fd is released either way.
    this.port?.close(() => done());
  }

  /** The port went away without close(): report it once, worded for an operator, the driver's error as the cause. */
  private lost(cause: Error | null): void {
    if (this.closing) return;
    const reason = cause === null ? 'port closed' : isDisconnect(cause) ? 'device disconnected' : cause.message;
    void this.finish(new Error(`link lost: ${reason} (${this.path})`, cause ? { cause } : undefined));
  }
}
