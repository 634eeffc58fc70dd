// The link lifecycle the serial and TCP transports share: lines flushed before onClose, onClose once, close() repeatable.
import type { Readable } from 'node:stream';
import { eachCleanLine, LineSplitter, readLines } from './line-parser.js';
import type { Transport, TransportHandlers } from './transport.js';

/** A Transport over a node byte stream (serial port, socket); subclasses open and release the stream itself. */
export abstract class StreamTransport implements Transport {
  abstract readonly description: string;
  protected handlers: TransportHandlers | null = null;
  /** The link ended (lost or closed): onClose has been delivered or is on its way. */
  protected finished = false;
  /** close() was called: a write now is a caller bug, not a lost link. */
  protected closeRequested = false;
  /** Set while (and after) close() releases the stream: a 'close' or 'error' then is not a lost link. */
  protected closing: Promise<void> | null = null;
  private opened = false;
  private stopLines: (() => Promise<void>) | null = null;
  private finishing: Promise<void> | null = null;

  abstract open(handlers: TransportHandlers): Promise<void>;
  abstract write(data: string | Buffer): boolean;

  /** Releases the stream for close() (only ever after begin()); calls `done` once it is released. */
  protected abstract release(done: () => void): void;

  /** open() calls this once the new stream is up: what happened to an earlier link no longer counts. */
  protected begin(handlers: TransportHandlers): void {
    this.opened = true;
    this.handlers = handlers;
    this.finished = false;
    this.finishing = null;
    this.closing = null;
    this.closeRequested = false;
  }

  /** Delivers the stream's lines to `handlers` until the link finishes. */
  protected readLinesFrom(source: Readable, handlers: TransportHandlers): void {
    this.stopLines = readLines(source, (line) => handlers.onLine(line));
  }

  /**
   * For a socket opened with net's `onread` (reads land in one reused buffer, no stream in between): returns the
   * callback that turns each read into lines for `handlers`. Reads are delivered as they come, so stopping has
   * nothing left to flush.
   */
  protected linesFromReads(handlers: () => TransportHandlers | null): (nread: number, buf: Buffer) => boolean {
    const splitter = new LineSplitter((raw) => {
      const h = handlers();
      if (h) eachCleanLine(raw, (line) => h.onLine(line));
    });
    this.stopLines = () => {
      splitter.reset();
      return Promise.resolve();
    };
    return (nread, buf) => {
      splitter.push(buf.subarray(0, nread));
      return true;
    };
  }

  close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closeRequested = true;
    if (!this.opened) return Promise.resolve();
    if (this.finished) return this.finishing ?? Promise.resolve();
    this.closing = new Promise<void>((resolve) => {
      this.release(() => {
        void this.finish(null).then(resolve);
      });
    });
    return this.closing;
  }

  /** Delivers the lines already received, then onClose exactly once. */
  protected finish(error: Error | null): Promise<void> {
    this.finishing ??= (async () => {
      this.finished = true;
      await this.stopLines?.();
      this.stopLines = null;
      const handlers = this.handlers;
      this.handlers = null;
      handlers?.onClose(error);
    })();
    return this.finishing;
  }
}
