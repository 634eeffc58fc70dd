// Streaming pre-pass over a G-code file: the bytes and lines a job will really send (comments and blank lines excluded).
import { GcodeFileSource } from './gcode-file-source.js';

export interface GcodeTotal {
  /** Bytes of every line as sent (stripped text plus its newline), the unit of JobSnapshot.progress. */
  bytes: number;
  lines: number;
}

/** Bytes one stripped line counts for: the command and its newline (line number and checksum are framing, not G-code). */
export const sentBytes = (stripped: string): number => Buffer.byteLength(stripped) + 1;

/**
 * Reads the file once, as a stream (memory stays flat for any size), stripping each line with the same rule as
 * the job stream, so the total and the acknowledged count are measured the same way. `cancelled()` is polled
 * between reads so an ended job stops the pass. Rejects when the file cannot be read.
 */
export function countGcode(filePath: string, strip: (raw: string) => string, cancelled: () => boolean = () => false): Promise<GcodeTotal | null> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    let lines = 0;
    const src: GcodeFileSource = new GcodeFileSource(filePath, { onReadable: () => pump(), onError: reject });
    const pump = (): void => {
      if (cancelled()) {
        src.close();
        resolve(null);
        return;
      }
      for (let raw = src.nextLine(); raw !== null; raw = src.nextLine()) {
        const text = strip(raw);
        if (text === '') continue;
        bytes += sentBytes(text);
        lines++;
      }
      if (src.done) {
        src.close();
        resolve({ bytes, lines });
      }
    };
    src.open().then(pump, reject);
  });
}
