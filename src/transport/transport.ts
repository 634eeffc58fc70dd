// The one seam between printer sessions and the outside world: serial ports, TCP bridges and the in-process simulator all look like this.

/** What a transport reports back to its owner (a printer session). */
export interface TransportHandlers {
  /** One complete line received from the printer, without its line terminator (\n, \r\n or \r). */
  onLine(line: string): void;
  /** The write side accepted everything queued after write() returned false. */
  onDrain(): void;
  /**
   * The link is gone (cable pulled, bridge closed, port error) or was closed by close().
   * `error` is null for a requested close. Called exactly once per successful open().
   */
  onClose(error: Error | null): void;
}

export interface Transport {
  /** e.g. "serial:///dev/ttyACM0?baud=250000": for logs and the printer's record, never with secrets. */
  readonly description: string;
  /** Resolves once the link is usable; rejects with a clear message (no such port, refused, ...). */
  open(handlers: TransportHandlers): Promise<void>;
  /**
   * Queue bytes for the printer. Returns false when the caller should wait for onDrain before writing more
   * (the bytes passed are still queued: nothing is dropped).
   */
  write(data: string | Buffer): boolean;
  /** Close the link; resolves when closed. Safe to call twice. */
  close(): Promise<void>;
  /**
   * Serial links only: the baud rates to try, in order; open() uses the first. One entry when the URL named a
   * baud, [250000, 115200] (or TransportOptions.baudCandidates) when it did not. Absent for links without a baud.
   */
  readonly baudCandidates?: readonly number[];
  /**
   * Serial links only: switch the open link to another rate in place, without closing it (no DTR toggle, so the
   * board is not reset). A session that gets no answer to its handshake calls this with the next candidate.
   */
  setBaudRate?(baud: number): Promise<void>;
  /** Links with a line rate (serial, a simulated serial line): the rate in use now, bit/s. Absent otherwise. */
  readonly baudRate?: number | undefined;
}

/** Options every transport factory understands, beside what its URL says. */
export interface TransportOptions {
  /** Baud rates to try in order when the URL names none (serial only). */
  baudCandidates?: number[];
}
