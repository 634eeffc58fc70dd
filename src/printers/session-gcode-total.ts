// Streaming passes over a G-code file: every raw line with the byte offset just past it, and from that the bytes and
// lines a job will really send (comments and blank lines excluded).
import { GcodeFileSource } from './gcode-file-source.js';

export interface GcodeTotal {
  /** Bytes of every line as sent (stripped text plus its newline), the unit of JobSnapshot.progress. */
  bytes: number;
  lines: number;
}

/** Bytes one stripped line counts for: the command and its newline (line number and checksum are framing, not G-code). */
export const sentBytes = (stripped: string): number => Buffer.byteLength(stripped) + 1;

/**
 * Reads the file once, as a stream (memory stays flat for any size), handing each raw line and the offset just past it
 * (terminator included) to `onLine`. `cancelled()` is polled between reads; a cancelled pass resolves false. Rejects
 * when the file cannot be read or is not text.
 */
export function scanGcodeLines(filePath: string, onLine: (raw: string, endOffset: number) => void, cancelled: () => boolean = () => false): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const src: GcodeFileSource = new GcodeFileSource(filePath, { onReadable: () => pump(), onError: reject });
    const pump = (): void => {
      if (cancelled()) {
        src.close();
        resolve(false);
        return;
      }
      for (let raw = src.nextLine(); raw !== null; raw = src.nextLine()) onLine(raw, src.bytesConsumed);
      if (src.done) {
        src.close();
        resolve(true);
      }
    };
    src.open().then(pump, reject);
  });
}

/** The sent bytes and lines of a file, stripping each line with the same rule as the job stream; null when cancelled. */
export async function countGcode(filePath: string, strip: (raw: string) => string, cancelled: () => boolean = () => false): Promise<GcodeTotal | null> {
  let bytes = 0;
  let lines = 0;
  const complete = await scanGcodeLines(
    filePath,
    (raw) => {
      const text = strip(raw);
      if (text === '') return;
      bytes += sentBytes(text);
      lines++;
    },
    cancelled,
  );
  return complete ? { bytes, lines } : null;
}
