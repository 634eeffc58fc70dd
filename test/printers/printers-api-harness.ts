// Test harness for the printers API: the real app on real SQLite with sim:// printers, JSON calls, and bounded waits on bus events.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import type { EventName } from '../../src/events/event-bus.js';
import type { PrinterRecord } from '../../src/printers/printer-record.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';

export interface CallResult {
  status: number;
  // Tests read whatever the endpoint answers.
  body: any;
}

export interface PrintersApp {
  t: TestApp;
  admin: string;
  call(method: string, path: string, body?: unknown, key?: string): Promise<CallResult>;
  /** POST /v1/printers, asserting 201. */
  create(body: Record<string, unknown>): Promise<PrinterRecord>;
  get(id: string): Promise<PrinterRecord>;
  /**
   * Resolves once `check` holds, re-checking after every bus event and every 25 ms (a failed connect attempt emits no
   * event); fails after `timeoutMs` naming `what`.
   */
  until(what: string, check: () => boolean | Promise<boolean>, timeoutMs?: number): Promise<void>;
  /** Until GET shows this status (and, for idle, the handshake is done). */
  untilStatus(id: string, status: PrinterRecord['status'], timeoutMs?: number): Promise<PrinterRecord>;
  /** Records every bus event by name from now on. */
  record(...names: EventName[]): Array<{ name: EventName; printer_id: string; reason?: string }>;
  close(): Promise<void>;
}

export async function startPrintersApp(options: Parameters<typeof startTestApp>[0] = {}): Promise<PrintersApp> {
  const t = await startTestApp(options);
  const admin = await mintTestKey(t);
  const app: PrintersApp = {
    t,
    admin,
    async call(method, path, body, key = admin) {
      const res = await t.request(path, {
        method,
        headers: bearer(key, body !== undefined),
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async create(body) {
      const res = await app.call('POST', '/v1/printers', body);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body as PrinterRecord;
    },
    async get(id) {
      const res = await app.call('GET', `/v1/printers/${id}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body as PrinterRecord;
    },
    until(what, check, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        let done = false;
        const finish = (err: Error | null): void => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          clearInterval(poll);
          off();
          if (err) reject(err);
          else resolve();
        };
        // One probe at a time: progress events come in bursts and an async check would pile up requests.
        let probing = false;
        const probe = (): void => {
          if (probing || done) return;
          probing = true;
          Promise.resolve(check()).then(
            (ok) => {
              probing = false;
              if (ok) finish(null);
            },
            (err: Error) => finish(err),
          );
        };
        const timer = setTimeout(() => finish(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
        const off = t.deps.bus.onAny(() => probe());
        const poll = setInterval(probe, 25);
        probe();
      });
    },
    async untilStatus(id, status, timeoutMs) {
      let last: PrinterRecord | null = null;
      await app.until(
        `${id} to be ${status}`,
        () => {
          const s = t.deps.sessions.get(id)?.currentStatus;
          return (status === 'offline' ? s === 'offline' || s === 'connecting' || s === undefined : s === status);
        },
        timeoutMs,
      );
      last = await app.get(id);
      return last;
    },
    record(...names) {
      const seen: Array<{ name: EventName; printer_id: string; reason?: string }> = [];
      t.deps.bus.onAny((payload, name) => {
        if (names.includes(name)) {
          const p = payload as { printer_id: string; reason?: string };
          seen.push({ name, printer_id: p.printer_id, ...(p.reason !== undefined ? { reason: p.reason } : {}) });
        }
      });
      return seen;
    },
    close: () => t.close(),
  };
  return app;
}

/** A sim:// URL for a fast simulated Marlin (motion, heating and boot take no time). */
export const fastSim = (name: string): string => `sim://${name}?speed=max`;

/**
 * A job that keeps a printer printing for about a minute: 1 mm moves at 10 mm/s in a simulator running 5x real time,
 * so the queued moves drain in well under a second when paused or cancelled.
 */
export async function writeLongJob(file: string, moves = 3000): Promise<void> {
  const lines = ['G90', 'G1 X0 Y0 Z0.2 F6000'];
  for (let i = 1; i <= moves; i++) lines.push(`G1 X${i % 2 === 0 ? 10 : 11} Y10 F600`);
  await writeFile(file, lines.join('\n') + '\n');
}

/** The simulator speed that goes with writeLongJob. */
export const longJobSim = (name: string): string => `sim://${name}?speed=5`;
