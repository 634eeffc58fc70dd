// The slicer's print-time estimate of a G-code file on disk, read from its first and last 64 KiB (slicers write it
// in the header or the footer), without reading the whole file: for `printfarm stream`, which starts printing at once.
import { open } from 'node:fs/promises';
import { SlicerMetadataCollector } from './slicer-metadata.js';

const EDGE_BYTES = 64 * 1024;
/** Lines of the tail are numbered past the head's, so slicer identification (first lines only) ignores them. */
const TAIL_LINE_OFFSET = 1_000_000_000;

function feed(collector: SlicerMetadataCollector, text: string, firstLine: number, skipFirst: boolean): void {
  const lines = text.split(/\r?\n/);
  // A tail starts mid-line: its first piece is not a whole comment.
  lines.forEach((line, i) => {
    if (skipFirst && i === 0) return;
    const at = line.indexOf(';');
    if (at >= 0) collector.comment(line.slice(at + 1), firstLine + i);
  });
}

/** Seconds, or undefined when the file has no estimate or cannot be read (the print itself reports that). */
export async function readSlicerEstimate(file: string): Promise<number | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
    const size = (await handle.stat()).size;
    const collector = new SlicerMetadataCollector();
    const head = Buffer.alloc(Math.min(EDGE_BYTES, size));
    await handle.read(head, 0, head.length, 0);
    feed(collector, head.toString('latin1'), 1, false);
    if (size > EDGE_BYTES) {
      const tail = Buffer.alloc(Math.min(EDGE_BYTES, size - EDGE_BYTES));
      await handle.read(tail, 0, tail.length, size - tail.length);
      feed(collector, tail.toString('latin1'), TAIL_LINE_OFFSET, true);
    }
    return collector.result().estimated_duration ?? undefined;
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}
