// Splits a multipart/x-mixed-replace byte stream into JPEG frames, with every buffer bounded (pure: no I/O, no timers).
import { CameraFault } from './camera-fault.js';

/** The most bytes of part headers (and of noise before the first boundary) accepted before the stream is called garbage. */
const MAX_HEADER_BYTES = 16 * 1024;
const CRLF2 = Buffer.from('\r\n\r\n');
const LF2 = Buffer.from('\n\n');

/** The boundary of a multipart Content-Type, without the leading dashes some servers put in it too; null when absent. */
export function boundaryOf(contentType: string): string | null {
  const m = /boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const raw = m?.[1] ?? m?.[2];
  if (!raw) return null;
  const bare = raw.replace(/^--/, '');
  return bare === '' ? null : bare;
}

const isJpeg = (b: Buffer): boolean => b.length >= 4 && b[0] === 0xff && b[1] === 0xd8;

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * Feed it chunks as they arrive; it returns the complete frames. A part with Content-Length is cut by it (so bytes
 * inside a JPEG that look like a boundary do no harm); one without is cut at the next boundary. Never holds more than
 * maxFrameBytes plus one header block: a larger frame is refused, not buffered.
 */
export class MjpegParser {
  private buf: Buffer = Buffer.alloc(0);
  private state: 'boundary' | 'headers' | 'body' = 'boundary';
  private length: number | null = null;
  private readonly delimiter: Buffer;
  /** The most bytes held at once, for tests that check memory stays bounded. */
  peakBuffered = 0;

  constructor(
    boundary: string,
    private readonly maxFrameBytes: number,
  ) {
    this.delimiter = Buffer.from(`--${boundary}`);
  }

  /** The frames completed by `chunk`; throws CameraFault when the stream cannot be a camera's. */
  push(chunk: Buffer): Buffer[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    this.peakBuffered = Math.max(this.peakBuffered, this.buf.length);
    const frames: Buffer[] = [];
    for (;;) {
      const frame = this.step();
      if (frame === undefined) break;
      if (frame) frames.push(frame);
    }
    return frames;
  }

  /** One move of the state machine: a frame, null when it moved without a frame, undefined when it needs more bytes. */
  private step(): Buffer | null | undefined {
    if (this.state === 'boundary') {
      const at = this.buf.indexOf(this.delimiter);
      if (at < 0) {
        if (this.buf.length > MAX_HEADER_BYTES) throw new CameraFault('garbage', `no multipart boundary in the first ${MAX_HEADER_BYTES} bytes`);
        return undefined;
      }
      const eol = this.buf.indexOf(0x0a, at);
      if (eol < 0) return undefined;
      this.buf = this.buf.subarray(eol + 1);
      this.state = 'headers';
      return null;
    }
    if (this.state === 'headers') {
      const crlf = this.buf.indexOf(CRLF2);
      const lf = this.buf.indexOf(LF2);
      // A blank line straight away: a part without headers.
      const blank = this.buf[0] === 0x0a ? 1 : this.buf[0] === 0x0d && this.buf[1] === 0x0a ? 2 : -1;
      const end = blank > 0 ? blank : crlf >= 0 && (lf < 0 || crlf < lf) ? crlf + 4 : lf >= 0 ? lf + 2 : -1;
      // A part may start straight after its boundary line with no headers at all.
      const bare = this.buf.length >= 2 && isJpeg(this.buf);
      if (end < 0 && !bare) {
        if (this.buf.length > MAX_HEADER_BYTES) throw new CameraFault('garbage', 'a part header longer than 16 KB (not an MJPEG stream)');
        return undefined;
      }
      const head = bare ? '' : this.buf.subarray(0, end).toString('latin1');
      const type = /^content-type\s*:\s*([^\r\n;]+)/im.exec(head)?.[1]?.trim().toLowerCase();
      if (type && type !== 'image/jpeg' && type !== 'image/jpg') throw new CameraFault('garbage', `a part of type ${type.slice(0, 60)}, not image/jpeg`);
      const len = /^content-length\s*:\s*(\d+)/im.exec(head)?.[1];
      this.length = len === undefined ? null : Number(len);
      if (this.length !== null && this.length > this.maxFrameBytes) {
        throw new CameraFault('frame_too_large', `a frame of ${mb(this.length)}, over the ${mb(this.maxFrameBytes)} limit`);
      }
      this.buf = bare ? this.buf : this.buf.subarray(end);
      this.state = 'body';
      return null;
    }
    let frame: Buffer;
    if (this.length !== null) {
      if (this.buf.length < this.length) return undefined;
      frame = this.buf.subarray(0, this.length);
      this.buf = this.buf.subarray(this.length);
    } else {
      const at = this.buf.indexOf(this.delimiter);
      if (at < 0) {
        if (this.buf.length > this.maxFrameBytes + this.delimiter.length) {
          throw new CameraFault('frame_too_large', `a frame over the ${mb(this.maxFrameBytes)} limit`);
        }
        return undefined;
      }
      frame = trimTrailingNewline(this.buf.subarray(0, at));
      this.buf = this.buf.subarray(at);
    }
    this.state = 'boundary';
    if (!isJpeg(frame)) throw new CameraFault('garbage', 'a part that is not a JPEG image');
    // A copy: the frame outlives this buffer's other bytes, which must be freed.
    return Buffer.from(frame);
  }
}

function trimTrailingNewline(b: Buffer): Buffer {
  let end = b.length;
  if (end > 0 && b[end - 1] === 0x0a) end--;
  if (end > 0 && b[end - 1] === 0x0d) end--;
  return b.subarray(0, end);
}
