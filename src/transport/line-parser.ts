// Turns a printer's byte stream into clean lines; the serial and TCP transports share it so both obey the same rules.
import type { Readable } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { ReadlineParser } from '@serialport/parser-readline';

/**
 * Bytes held while waiting for a '\n'. Firmware lines are a few hundred bytes at most; a stream of noise without a
 * newline (wrong baud rate) must not grow memory, so past this it is delivered as one garbage line.
 */
export const MAX_PENDING_LINE_BYTES = 16 * 1024;

/** Readline on '\n' with a cap on the bytes held for an unfinished line. */
export class PrinterLineParser extends ReadlineParser {
  private readonly maxPending: number;

  constructor(maxPending = MAX_PENDING_LINE_BYTES) {
    super({ delimiter: '\n', encoding: 'utf8' });
    this.maxPending = maxPending;
  }

  override _transform(chunk: Buffer, encoding: BufferEncoding, callback: TransformCallback): void {
    super._transform(chunk, encoding, (err?: Error | null) => {
      if (!err && this.buffer.length > this.maxPending) {
        this.push(this.buffer);
        this.buffer = Buffer.alloc(0);
      }
      callback(err);
    });
  }

  /** At end of stream an unfinished line is dropped, never delivered: half a reply could be misread. */
  override _flush(callback: TransformCallback): void {
    this.buffer = Buffer.alloc(0);
    callback();
  }
}

/**
 * One raw line (split on '\n') becomes the lines a printer session sees: NUL bytes (line noise at connect) removed,
 * '\r' treated as a terminator too, so "ok\r" is "ok" and "a\rb" is two lines. Garbage stays a line: the protocol
 * core decides what to ignore.
 */
export function cleanLines(raw: string): string[] {
  const text = raw.includes('\0') ? raw.replaceAll('\0', '') : raw;
  if (!text.includes('\r')) return [text];
  const parts = text.split('\r');
  // "ok\r" splits into ["ok", ""]: the trailing empty part is the end of the terminator, not a line.
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** Calls `onLine` for each clean line of one raw line (the rules of cleanLines), without building an array. */
export function eachCleanLine(raw: string, onLine: (line: string) => void): void {
  if (!raw.includes('\0') && !raw.includes('\r')) onLine(raw);
  else for (const line of cleanLines(raw)) onLine(line);
}

/**
 * Splits a byte stream on '\n' with the rules of PrinterLineParser (a cap on an unfinished line, delivered as one
 * garbage line past it), straight from the chunks: no stream in between, so a read costs one call, not a pipe.
 */
export class LineSplitter {
  private pending: Buffer | null = null;

  constructor(
    private readonly onRaw: (raw: string) => void,
    private readonly maxPending = MAX_PENDING_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let data = chunk;
    if (this.pending !== null) {
      data = Buffer.concat([this.pending, chunk]);
      this.pending = null;
    }
    let start = 0;
    for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, start)) {
      this.onRaw(data.toString('utf8', start, nl));
      start = nl + 1;
    }
    if (start < data.length) {
      const rest = data.subarray(start);
      if (rest.length > this.maxPending) this.onRaw(rest.toString('utf8'));
      // A copy: the rest must not pin the whole chunk (a socket's read buffer) until its line ends.
      else this.pending = Buffer.from(rest);
    }
  }

  /** Drops an unfinished line: half a reply could be misread. */
  reset(): void {
    this.pending = null;
  }
}

/**
 * Calls `onLine` for every clean line of `source`, read chunk by chunk as it arrives. The returned stop function
 * detaches it after delivering the complete lines already received (also those still buffered in the stream), so a
 * session sees a firmware's last words ("Error:Printer halted") before it hears that the link is gone.
 */
export function readLines(source: Readable, onLine: (line: string) => void): () => Promise<void> {
  const splitter = new LineSplitter((raw) => eachCleanLine(raw, onLine));
  const onData = (chunk: Buffer | string): void => splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  source.on('data', onData);
  let stopped: Promise<void> | null = null;
  return () => {
    stopped ??= (async () => {
      source.off('data', onData);
      for (let chunk = source.read() as Buffer | string | null; chunk !== null; chunk = source.read() as Buffer | string | null) {
        onData(chunk);
      }
      splitter.reset();
    })();
    return stopped;
  };
}
