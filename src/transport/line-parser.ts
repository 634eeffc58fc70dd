// Turns a printer's byte stream into clean lines; the serial and TCP transports share it so both obey the same rules.
import type { Readable } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import { finished } from 'node:stream/promises';
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

/**
 * Feeds `source` through a PrinterLineParser and calls `onLine` for every clean line. The returned stop function
 * detaches it and resolves once every complete line already received has been delivered, so a session sees a
 * firmware's last words ("Error:Printer halted") before it hears that the link is gone.
 */
export function readLines(source: Readable, onLine: (line: string) => void): () => Promise<void> {
  const parser = new PrinterLineParser();
  parser.on('data', (raw: string) => {
    for (const line of cleanLines(raw)) onLine(line);
  });
  source.pipe(parser);
  let stopped: Promise<void> | null = null;
  return () => {
    stopped ??= (async () => {
      source.unpipe(parser);
      parser.end();
      await finished(parser).catch(() => undefined);
      parser.removeAllListeners('data');
    })();
    return stopped;
  };
}
