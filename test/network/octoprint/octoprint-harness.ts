// Test helpers: an OctoPrint stand-in and a driver against it, a real EventBus recording events, real files in a temp dir.
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '../../../src/events/event-bus.js';
import type { DomainEvents } from '../../../src/events/event-types.js';
import { ExtrusionIndexCache } from '../../../src/printers/extrusion-index-cache.js';
import { createOctoPrintPrinter, type OctoPrintPrinter, type OctoPrintPrinterOptions } from '../../../src/printers/octoprint/create-octoprint-printer.js';
import { startOctoPrintStandIn, type OctoPrintStandIn, type OctoPrintStandInOptions } from '../../../src/simulator/octoprint/octoprint-standin.js';

export const API_KEY = 'test-key-0123456789';

/** Relative extrusion, `moves` moves of 10 mm each pushing 0.5 mm, with comments: 0.5 mm per move line, hand-countable. */
export function testGcode(moves: number): string {
  let s = '; printfarm test file\nM83 ; relative E\nG92 E0\n';
  for (let i = 0; i < moves; i++) s += `G1 X${i % 2 === 0 ? 20 : 10} Y10 E0.5 F1200 ; move ${i}\n`;
  return s + 'M400\n';
}

/** Hand count: the E of every move line that ends at or before `offset`. */
export function handExtruded(text: string, offset: number): number {
  let pos = 0;
  let mm = 0;
  for (const line of text.split('\n')) {
    pos += Buffer.byteLength(line) + 1;
    if (pos > offset) break;
    const m = /^G1 .*E([\d.]+)/.exec(line);
    if (m) mm += Number(m[1]);
  }
  return mm;
}

export interface Rig {
  standIn: OctoPrintStandIn;
  driver: OctoPrintPrinter;
  bus: EventBus;
  events: Array<{ name: string; payload: unknown }>;
  dir: string;
  file(name: string, text: string): string;
  newDriver(extra?: Partial<OctoPrintPrinterOptions>): OctoPrintPrinter;
  close(): Promise<void>;
}

const EVENT_NAMES: Array<keyof DomainEvents> = [
  'printer.online', 'printer.offline', 'printer.error', 'job.started', 'job.progress', 'job.paused', 'job.resumed',
  'job.completed', 'job.failed', 'job.cancelled', 'printer.external_job_ended',
];

export async function rig(opts: { standIn?: Partial<OctoPrintStandInOptions>; driver?: Partial<OctoPrintPrinterOptions> } = {}): Promise<Rig> {
  const standIn = await startOctoPrintStandIn({ apiKey: API_KEY, host: '127.0.0.1', port: 0, pushIntervalMs: 100, simulator: { speed: '20' }, ...opts.standIn });
  const bus = new EventBus();
  const events: Rig['events'] = [];
  for (const name of EVENT_NAMES) bus.on(name, (payload) => events.push({ name, payload }));
  const dir = mkdtempSync(join(tmpdir(), 'octoprint-test-'));
  const indexes = new ExtrusionIndexCache();
  const drivers: OctoPrintPrinter[] = [];
  const newDriver = (extra: Partial<OctoPrintPrinterOptions> = {}): OctoPrintPrinter => {
    const d = createOctoPrintPrinter({
      printerId: 'p1', url: standIn.url, apiKey: API_KEY, bus, extrusionIndexes: indexes, pollMs: 200, requestTimeoutMs: 2000, retries: 1, actionTimeoutMs: 10_000, replyTimeoutMs: 3000,
      ...opts.driver, ...extra,
    });
    drivers.push(d);
    return d;
  };
  const driver = newDriver();
  return {
    standIn, driver, bus, events, dir, newDriver,
    file(name, text) {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    },
    async close() {
      for (const d of drivers) await d.disconnect();
      await standIn.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until `cond` holds (checked every 20 ms), or fails naming what it waited for. */
export async function until(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
