// Shared setup for the Moonraker driver tests: a stand-in on 127.0.0.1, a driver with a real EventBus, real files.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EventBus } from '../../../src/events/event-bus.js';
import type { DomainEvents } from '../../../src/events/event-types.js';
import { ExtrusionIndexCache } from '../../../src/printers/extrusion-index-cache.js';
import { createMoonrakerPrinter, type MoonrakerPrinter, type MoonrakerPrinterOptions } from '../../../src/printers/moonraker/moonraker-printer.js';
import { startMoonrakerStandIn, type MoonrakerStandIn, type MoonrakerStandInOptions } from '../../../src/simulator/moonraker/moonraker-standin.js';

export const API_KEY = 'c0ffee-moonraker-key';

export interface Harness {
  dir: string;
  standIn: MoonrakerStandIn;
  bus: EventBus;
  events: Array<{ name: keyof DomainEvents; payload: unknown }>;
  indexes: ExtrusionIndexCache;
  printer(overrides?: Partial<MoonrakerPrinterOptions>): MoonrakerPrinter;
  file(name: string, text: string): Promise<string>;
  close(): Promise<void>;
}

export async function harness(standInOpts: MoonrakerStandInOptions = {}): Promise<Harness> {
  const dir = await mkdtemp(path.join(tmpdir(), 'moonraker-test-'));
  const standIn = await startMoonrakerStandIn({ apiKey: API_KEY, simulator: { speed: 20 }, statusIntervalMs: 50, ...standInOpts });
  const bus = new EventBus();
  const events: Harness['events'] = [];
  bus.onAny((payload, name) => events.push({ name, payload }));
  const indexes = new ExtrusionIndexCache();
  const printers: MoonrakerPrinter[] = [];
  return {
    dir,
    standIn,
    bus,
    events,
    indexes,
    printer(overrides = {}) {
      const p = createMoonrakerPrinter({
        printerId: `p${printers.length + 1}`,
        url: standIn.url,
        apiKey: API_KEY,
        bus,
        extrusionIndexes: indexes,
        reconnect: { initialMs: 100, maxMs: 400 },
        requestTimeoutMs: 2000,
        pingMs: 300,
        klippyPollMs: 200,
        actionTimeoutMs: 10_000,
        ...overrides,
      });
      printers.push(p);
      return p;
    },
    async file(name, text) {
      const p = path.join(dir, name);
      await writeFile(p, text);
      return p;
    },
    async close() {
      for (const p of printers) await p.disconnect();
      await standIn.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls until `test` is true (the driver hears the printer asynchronously); throws with `what` after `ms`. */
export async function until(what: string, test: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A print with extrusion, retractions and dwells (so it can be caught mid-way): absolute E from G92 E0, every tenth
 * segment a retract/unretract pair and a 400 ms dwell (20 ms at the harness's speed 20).
 */
export function testPrint(segments = 60): string {
  const lines = ['; printfarm moonraker test print', 'M104 S200', 'M140 S60', 'G28', 'M82', 'G92 E0', 'G1 X10 Y10 F6000'];
  let e = 0;
  for (let i = 1; i <= segments; i++) {
    e += 1.5;
    lines.push(`G1 X${10 + (i % 150)} Y${10 + (i % 7)} E${e.toFixed(3)} F1800 ; segment ${i}`);
    if (i % 10 === 0) {
      lines.push(`G1 E${(e - 0.8).toFixed(3)} F2400 ; retract`, `G4 P400`, `G1 E${e.toFixed(3)} F2400 ; unretract`);
    }
  }
  lines.push('M104 S0', 'M140 S0', '; end');
  return lines.join('\n') + '\n';
}

/**
 * The net filament (mm) the file pushed up to byte `offset`, computed by hand for testPrint's shape: absolute E from
 * G92 E0 with no other reset, so the net length is the E of the last E move that ends at or before the offset.
 */
export function handMmAt(gcode: string, offset: number): number {
  let pos = 0;
  let e = 0;
  for (const raw of gcode.split('\n')) {
    pos += Buffer.byteLength(raw) + 1;
    if (pos > offset) break;
    const m = /^G1 [^;]*E(-?[\d.]+)/.exec(raw);
    if (m) e = Number(m[1]);
  }
  return e;
}
