// Shared pieces of the Bambu driver tests: the stand-in on Mosquitto and vsftpd, a driver on a real EventBus, files.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '../../../src/events/event-bus.js';
import { ExtrusionIndexCache } from '../../../src/printers/extrusion-index-cache.js';
import { createBambuPrinter, type BambuPrinter, type BambuPrinterOptions } from '../../../src/printers/bambu/bambu-printer.js';
import { bambuStandInUnavailable, startBambuStandIn, type BambuStandIn, type BambuStandInOptions } from '../../../src/simulator/bambu/bambu-standin.js';

/** Why these tests cannot run here (skip with it), or false. */
export const skipReason: string | false = bambuStandInUnavailable() ?? false;

/** `lines` moves of 10 mm that each push 1 mm of filament, with layer marks as a slicer writes them. */
export function gcodeText(lines: number): string {
  let text = '; test print\nG21\nG90\nM83\nG28\n';
  for (let i = 0; i < lines; i++) text += `${i % 20 === 0 ? ';LAYER_CHANGE\n' : ''}G1 X${10 + (i % 2) * 10} Y${10 + (i % 7)} E1.00 F3000\n`;
  return text + 'M104 S0\n';
}

export interface Rig {
  standIn: BambuStandIn;
  events: Array<{ name: string; payload: Record<string, unknown> }>;
  driver(extra?: Partial<BambuPrinterOptions>): BambuPrinter;
  file(name: string, content: string | Buffer): Promise<string>;
  close(): Promise<void>;
}

export async function rig(opts: BambuStandInOptions = {}): Promise<Rig> {
  const standIn = await startBambuStandIn({ reportMs: 100, simulator: { speed: 25 }, ...opts });
  const bus = new EventBus();
  const events: Rig['events'] = [];
  bus.onAny((payload, name) => events.push({ name, payload: payload as unknown as Record<string, unknown> }));
  const dir = await mkdtemp(join(tmpdir(), 'bambu-test-'));
  const indexes = new ExtrusionIndexCache();
  const printers: BambuPrinter[] = [];
  return {
    standIn,
    events,
    driver: (extra = {}) => {
      const p = createBambuPrinter({
        printerId: 'b1',
        url: standIn.url,
        apiKey: standIn.accessCode,
        bus,
        extrusionIndexes: indexes,
        requestTimeoutMs: 3000,
        actionTimeoutMs: 8000,
        retryMs: 100,
        gapMs: 1000,
        ...extra,
      });
      printers.push(p);
      return p;
    },
    file: async (name, content) => {
      const path = join(dir, name);
      await writeFile(path, content);
      return path;
    },
    close: async () => {
      for (const p of printers) await p.disconnect();
      await standIn.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function until<T>(what: string, f: () => T | undefined | null | false, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
