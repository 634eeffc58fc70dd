// A printer on a USB (or any tty) serial port through node-serialport, with Linux low-latency mode where the adapter allows it.
import { SerialPort } from 'serialport';
import { enableLowLatency, portLineControl } from './serial-low-latency.js';
import { linkLost, openFailure } from './serial-errors.js';
import { SerialLinkTransport } from './serial-link.transport.js';
import type { TransportHandlers } from './transport.js';

export type { SerialTransportOptions } from './serial-link.transport.js';

export class SerialTransport extends SerialLinkTransport {
  private port: SerialPort | null = null;

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
    this.lowLatency = await enableLowLatency(portLineControl(port), this.path);
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
    void this.finish(linkLost(this.path, cause));
  }
}
