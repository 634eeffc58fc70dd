// Drives a VirtualPrinter on a manual clock: write framed lines as raw bytes, read back the reply lines.
import { ManualScheduler } from '../../src/simulator/sim-scheduler.js';
import { parseSimulatorOptions } from '../../src/simulator/simulator-options.js';
import { VirtualPrinter } from '../../src/simulator/virtual-printer.js';
import { xorChecksum } from '../../src/simulator/line-check.js';

/** `N<n> <cmd>*<cs>` with the XOR checksum, plus the newline. */
export function frame(n: number, command: string): string {
  const body = `N${n} ${command}`;
  return `${body}*${xorChecksum(body)}\n`;
}

export interface Harness {
  clock: ManualScheduler;
  printer: VirtualPrinter;
  /** Every line received so far (terminators removed). */
  lines: string[];
  /** Raw bytes received so far. */
  raw(): Buffer;
  /** Lines received since the last call to take(). */
  take(): string[];
  write(text: string): boolean;
  advance(ms: number): void;
  /** Advances until a line matching `pattern` arrives (at most maxMs simulated ms); returns that line. */
  waitFor(pattern: RegExp, maxMs?: number): string;
  close(): void;
}

export function harness(params: Record<string, string> = {}): Harness {
  const clock = new ManualScheduler();
  const printer = new VirtualPrinter(parseSimulatorOptions({ record: '1', ...params }), { scheduler: clock });
  const lines: string[] = [];
  const chunks: Buffer[] = [];
  let pending = '';
  let taken = 0;
  printer.onOutput((bytes) => {
    chunks.push(bytes);
    pending += bytes.toString('latin1');
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const p of parts) lines.push(p.replace(/\r$/, ''));
  });
  const h: Harness = {
    clock,
    printer,
    lines,
    raw: () => Buffer.concat(chunks),
    take: () => {
      const out = lines.slice(taken);
      taken = lines.length;
      return out;
    },
    write: (text) => printer.hostWrite(Buffer.from(text, 'latin1')),
    advance: (ms) => clock.advance(ms),
    waitFor: (pattern, maxMs = 60_000) => {
      const start = lines.length;
      let found: string | undefined;
      clock.advanceUntil(() => (found = lines.slice(start).find((l) => pattern.test(l))) !== undefined, maxMs);
      return found!;
    },
    close: () => printer.close(),
  };
  return h;
}
