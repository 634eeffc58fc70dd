// Shared pieces of the PrusaLink driver tests: a stand-in, a driver on a real EventBus, G-code files in a temp dir.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '../../../src/events/event-bus.js';
import type { DomainEvents, } from '../../../src/events/event-types.js';
import { ExtrusionIndexCache } from '../../../src/printers/extrusion-index-cache.js';
import type { JobHandle } from '../../../src/printers/session-job-control.js';
import { createPrusaLinkPrinter, type PrusaLinkPrinter, type PrusaLinkPrinterOptions } from '../../../src/printers/prusalink/prusalink-printer.js';
import { startPrusaLinkStandIn, type PrusaLinkStandIn, type PrusaLinkStandInOptions } from '../../../src/simulator/prusalink/prusalink-standin.js';

export const LOGIN = 'maker:s3cret pass';

/** `lines` moves of 10 mm that each push exactly 1 mm of filament (relative E), after a short preamble. */
export function gcodeText(lines: number): string {
  let text = '; test print\nG21\nG90\nM83\nG28\n';
  for (let i = 0; i < lines; i++) text += `G1 X${10 + (i % 2) * 10} Y${10 + (i % 7)} E1.00 F3000 ; move ${i}\n`;
  return text + 'M104 S0\n';
}

/** Filament (mm) by hand: the extruding lines that end at or before `offset`. */
export function mmUpTo(text: string, offset: number): number {
  let mm = 0;
  let end = 0;
  for (const line of text.split('\n')) {
    end += Buffer.byteLength(line) + 1;
    if (end > offset) break;
    if (/^G1 .*E1\.00/.test(line)) mm += 1;
  }
  return mm;
}

export interface Rig {
  standIn: PrusaLinkStandIn;
  bus: EventBus;
  events: Array<{ name: string; payload: unknown }>;
  dir: string;
  printers: PrusaLinkPrinter[];
  driver(extra?: Partial<PrusaLinkPrinterOptions>): PrusaLinkPrinter;
  file(name: string, content: string | Buffer): Promise<string>;
  close(): Promise<void>;
}

export async function rig(standInOpts: PrusaLinkStandInOptions = {}): Promise<Rig> {
  const standIn = await startPrusaLinkStandIn({ apiKey: LOGIN, simulator: { speed: 25 }, ...standInOpts });
  const bus = new EventBus();
  const events: Rig['events'] = [];
  bus.onAny((payload, name) => events.push({ name, payload }));
  const dir = await mkdtemp(join(tmpdir(), 'prusalink-'));
  const indexes = new ExtrusionIndexCache();
  const printers: PrusaLinkPrinter[] = [];
  return {
    standIn,
    bus,
    events,
    dir,
    printers,
    driver: (extra = {}) => {
      const p = createPrusaLinkPrinter({
        printerId: 'p1',
        url: standIn.url,
        apiKey: LOGIN,
        bus,
        extrusionIndexes: indexes,
        pollMs: 40,
        requestTimeoutMs: 1000,
        actionTimeoutMs: 5000,
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

/** Waits until `cond` holds (checked every 10 ms); fails naming `what` after `ms`. */
export async function until(cond: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const named = <K extends keyof DomainEvents>(r: Rig, name: K): DomainEvents[K][] =>
  r.events.filter((e) => e.name === name).map((e) => e.payload as DomainEvents[K]);

/** A connected driver printing job `jobId` (a file of `lines` moves), once the printer reports `progress` % of it. */
export async function printing(r: Rig, jobId: string, lines: number, progress: number, extra: Partial<PrusaLinkPrinterOptions> = {}): Promise<{ p: PrusaLinkPrinter; h: JobHandle }> {
  const p = r.driver(extra);
  await p.connect();
  const h = await p.startJob({ jobId, filePath: await r.file(`${jobId}.gcode`, gcodeText(lines)) });
  await until(() => h.snapshot().progress >= progress, `progress ${progress} %`);
  return { p, h };
}

/** A connected driver that has seen a print of `benchy.gcode` (`lines` moves) started on the printer's own screen. */
export async function externalPrinting(r: Rig, lines: number): Promise<PrusaLinkPrinter> {
  const p = r.driver();
  await p.connect();
  r.standIn.startExternalPrint('benchy.gcode', Buffer.from(gcodeText(lines)));
  await until(() => p.snapshot().external_job != null, 'the external print');
  return p;
}
