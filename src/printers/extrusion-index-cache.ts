// Extrusion indexes of stored G-code files, built once per file (a streaming pass) and kept within a memory budget,
// for printers that report their position in a file they print themselves.
import { stat } from 'node:fs/promises';
import { stripGcodeLine } from '../protocol/framing.js';
import { ExtrusionIndexBuilder, type ExtrusionIndex } from '../protocol/extrusion-index.js';
import type { ExtrusionDialect } from '../protocol/extrusion-tracker.js';
import { scanGcodeLines } from './session-gcode-total.js';

const DEFAULT_BUDGET_BYTES = 64 * 1024 * 1024;

export class ExtrusionIndexCache {
  /** Insertion order is use order: a hit moves its entry to the end, the budget evicts from the front. */
  private readonly entries = new Map<string, Promise<ExtrusionIndex>>();
  private readonly sizes = new Map<string, number>();
  private used = 0;

  constructor(private readonly budgetBytes = DEFAULT_BUDGET_BYTES) {}

  /** The index of a file as it is now (a file replaced in place gets a new one). Rejects when it cannot be read. */
  async forFile(filePath: string, dialect: ExtrusionDialect): Promise<ExtrusionIndex> {
    const info = await stat(filePath);
    const key = `${dialect}\0${filePath}\0${info.size}\0${info.mtimeMs}`;
    let entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry;
    }
    entry = buildExtrusionIndex(filePath, dialect);
    this.entries.set(key, entry);
    entry.then(
      (index) => this.admit(key, index.bytes),
      () => this.entries.delete(key),
    );
    return entry;
  }

  private admit(key: string, bytes: number): void {
    if (!this.entries.has(key)) return;
    this.sizes.set(key, bytes);
    this.used += bytes;
    for (const old of this.entries.keys()) {
      if (this.used <= this.budgetBytes || old === key) break;
      this.entries.delete(old);
      this.used -= this.sizes.get(old) ?? 0;
      this.sizes.delete(old);
    }
  }
}

/** One streaming pass over the file: the lines as the printer runs them (comments stripped) with their end offsets. */
export async function buildExtrusionIndex(filePath: string, dialect: ExtrusionDialect): Promise<ExtrusionIndex> {
  const builder = new ExtrusionIndexBuilder(dialect);
  await scanGcodeLines(filePath, (raw, endOffset) => {
    const text = stripGcodeLine(raw);
    if (text !== '') builder.addLine(text, endOffset);
  });
  return builder.build();
}
