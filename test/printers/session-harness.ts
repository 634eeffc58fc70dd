// Test harness: a PrinterSession over sim:// with every event recorded and the virtual printers it opened kept at hand.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EventBus, type EventName } from '../../src/events/event-bus.js';
import type { DomainEvents } from '../../src/events/event-types.js';
import { type ConsoleEntry, PrinterSession, type PrinterSessionOptions } from '../../src/printers/printer-session.js';
import { createSimTransport, type SimTransport } from '../../src/transport/sim.transport.js';

export interface RecordedEvent {
  name: EventName;
  payload: DomainEvents[EventName];
}

export interface Harness {
  session: PrinterSession;
  bus: EventBus;
  events: RecordedEvent[];
  /** Every virtual printer the session opened, the current one last (a reconnect opens a new one). */
  sims: SimTransport[];
  readonly sim: SimTransport;
  dir: string;
  /** Resolves with the first event (already recorded or future) matching; rejects after `timeoutMs`. */
  waitFor<K extends EventName>(name: K, pred?: (p: DomainEvents[K]) => boolean, timeoutMs?: number): Promise<DomainEvents[K]>;
  names(): string[];
  close(): Promise<void>;
}

export async function openHarness(url: string, opts: Partial<PrinterSessionOptions> = {}): Promise<Harness> {
  const bus = new EventBus();
  const events: RecordedEvent[] = [];
  const sims: SimTransport[] = [];
  bus.onAny((payload, name) => events.push({ name, payload }));
  const session = new PrinterSession({
    printerId: 'prt_test',
    url,
    bus,
    drainQuietMs: 50,
    drainMaxMs: 500,
    reconnect: { initialMs: 50, maxMs: 400 },
    createTransport: (u) => {
      const t = createSimTransport(new URL(u));
      sims.push(t);
      return t;
    },
    ...opts,
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-session-'));
  const h: Harness = {
    session,
    bus,
    events,
    sims,
    get sim() {
      const s = sims[sims.length - 1];
      if (!s) throw new Error('no virtual printer opened yet');
      return s;
    },
    dir,
    waitFor(name, pred = () => true, timeoutMs = 20_000) {
      type P = DomainEvents[typeof name];
      const seen = events.find((e) => e.name === name && pred(e.payload as P));
      if (seen) return Promise.resolve(seen.payload as P);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          off();
          reject(new Error(`no ${name} event within ${timeoutMs} ms; got: ${h.names().join(', ')}`));
        }, timeoutMs);
        const off = bus.on(name, (p) => {
          if (!pred(p)) return;
          clearTimeout(timer);
          off();
          resolve(p);
        });
      });
    },
    names: () => events.map((e) => e.name).filter((n) => n !== 'job.progress'),
    async close() {
      await session.disconnect();
      for (const s of sims) s.printer.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/** Resolves once `count` console entries matching `pred` were seen (from now on); rejects after `timeoutMs`. */
export function consoleEntries(
  session: PrinterSession,
  pred: (e: ConsoleEntry) => boolean,
  count: number,
  timeoutMs = 20_000,
): Promise<ConsoleEntry[]> {
  const seen: ConsoleEntry[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`saw ${seen.length} of ${count} matching console entries within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = session.onConsole((e) => {
      if (!pred(e)) return;
      seen.push(e);
      if (seen.length < count) return;
      clearTimeout(timer);
      off();
      resolve(seen);
    });
  });
}

/** Resolves once `cond` holds, checking every 10 ms; fails after `timeoutMs` (a virtual printer at real speed). */
export async function until(cond: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
