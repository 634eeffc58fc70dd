// The main thread's pool of link workers: spreads printer sessions over N worker threads, routes calls and what the
// workers report, and when a worker dies takes only its printers offline (host_error), restarts it with a back-off
// and reconnects them.
import type { Worker } from 'node:worker_threads';
import { AppError } from '../../errors.js';
import type { EventBus } from '../../events/event-bus.js';
import type { Logger } from '../../logger.js';
import { ReconnectPolicy, type ReconnectPolicyOptions } from '../reconnect-policy.js';
import type { FromWorker, LinkCall, LinkWorkerData, ToWorker, WorkerSessionTuning } from './link-messages.js';
import { RemoteLink, fromWire, type LinkHost } from './remote-link.js';
import { spawnLinkWorker } from './link-worker-entry.js';

/** How often a worker sends every link's state when nothing happened (temperatures and counters stay this fresh). */
export const STATE_SAMPLE_MS = 250;

export interface LinkWorkerPoolOptions {
  size: number;
  bus: EventBus;
  logger: Logger;
  sessionOptions?: WorkerSessionTuning;
  /** Back-off of the restarts of a crashed worker (default 1 s doubling to 30 s). */
  restart?: ReconnectPolicyOptions;
  sampleMs?: number;
}

interface PendingCall {
  printerId: string;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

interface Slot {
  index: number;
  worker: Worker | null;
  links: Map<string, RemoteLink>;
  pending: Map<number, PendingCall>;
  policy: ReconnectPolicy;
  restartTimer: NodeJS.Timeout | null;
  /** Set when a test asked this worker to crash, so the log does not cry wolf. */
  crashRequested: boolean;
}

export class LinkWorkerPool implements LinkHost {
  private readonly slots: Slot[];
  private readonly where = new Map<string, Slot>();
  private nextCall = 1;
  private closed = false;

  constructor(private readonly o: LinkWorkerPoolOptions) {
    if (!Number.isInteger(o.size) || o.size < 1) throw new Error(`a link worker pool needs at least one worker (got ${o.size})`);
    this.slots = Array.from({ length: o.size }, (_, index) => ({
      index,
      worker: null,
      links: new Map(),
      pending: new Map(),
      policy: new ReconnectPolicy(o.restart),
      restartTimer: null,
      crashRequested: false,
    }));
  }

  get size(): number {
    return this.slots.length;
  }

  /** A link for the printer in the least loaded worker (started on first use); the session is built there. */
  open(printer: { id: string; url: string }, coolOnPause: () => Promise<boolean>): RemoteLink {
    if (this.closed) throw new AppError(409, 'printer_offline', 'the printer workers are shut down');
    const old = this.where.get(printer.id)?.links.get(printer.id);
    if (old) this.dispose(printer.id, old);
    const slot = this.slots.reduce((best, s) => (s.links.size < best.links.size ? s : best));
    const link = new RemoteLink(printer.id, printer.url, this, this.o.bus, coolOnPause);
    slot.links.set(printer.id, link);
    this.where.set(printer.id, slot);
    if (slot.worker) this.post(slot, { type: 'open', printerId: printer.id, url: printer.url });
    else if (!slot.restartTimer) this.start(slot);
    return link;
  }

  /** Forgets a closed link: the worker drops its session (a newer link of the same printer stays). */
  dispose(printerId: string, link: RemoteLink): void {
    const slot = this.where.get(printerId);
    if (!slot || slot.links.get(printerId) !== link) return;
    this.where.delete(printerId);
    slot.links.delete(printerId);
    if (slot.worker) this.post(slot, { type: 'close', printerId });
  }

  /** Which worker hosts the printer (tests), or null. */
  workerOf(printerId: string): number | null {
    return this.where.get(printerId)?.index ?? null;
  }

  /**
   * Test hook: makes the worker hosting `printerId` throw an uncaught exception, as a bug in a session would. Reached
   * only through this object, which no route holds.
   */
  crashWorkerOf(printerId: string): void {
    const slot = this.where.get(printerId);
    if (!slot?.worker) throw new Error(`no running worker hosts printer ${printerId}`);
    slot.crashRequested = true;
    this.post(slot, { type: 'crash' });
  }

  call(printerId: string, call: LinkCall): Promise<unknown> {
    const slot = this.where.get(printerId);
    if (!slot?.worker) {
      return Promise.reject(new AppError(409, 'printer_offline', `printer ${printerId} is offline`, 'its worker is restarting; wait until it is connected'));
    }
    const id = this.nextCall++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { printerId, resolve, reject });
      this.post(slot, { type: 'call', id, printerId, ...call });
    });
  }

  console(printerId: string, on: boolean): void {
    const slot = this.where.get(printerId);
    if (slot?.worker) this.post(slot, { type: 'console', printerId, on });
  }

  /** Ends every worker (after the sessions were closed through their links). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        if (slot.restartTimer) clearTimeout(slot.restartTimer);
        const w = slot.worker;
        slot.worker = null;
        if (w) await w.terminate();
      }),
    );
  }

  // ------------------------------------------------------------------------------------------------ internals

  private post(slot: Slot, m: ToWorker): void {
    slot.worker?.postMessage(m);
  }

  private start(slot: Slot): void {
    slot.restartTimer = null;
    const data: LinkWorkerData = { role: 'printfarm-link-worker', sessionOptions: this.o.sessionOptions ?? {}, sampleMs: this.o.sampleMs ?? STATE_SAMPLE_MS };
    const worker = spawnLinkWorker(data);
    slot.worker = worker;
    slot.crashRequested = false;
    worker.on('message', (m: FromWorker) => this.dispatch(slot, m));
    worker.on('error', (err) => {
      if (!slot.crashRequested) this.o.logger.error('a printer worker crashed', { worker: slot.index, error: err });
    });
    worker.on('exit', (code) => this.exited(slot, worker, code));
    // The links it hosts come back in it, and those that were up connect again.
    for (const link of slot.links.values()) {
      this.post(slot, { type: 'open', printerId: link.printerId, url: link.url });
      if (link.wanted) link.connect().catch(() => undefined);
    }
  }

  /** Everything a worker says goes through here. */
  private dispatch(slot: Slot, m: FromWorker): void {
    switch (m.type) {
      case 'reply': {
        const call = slot.pending.get(m.id);
        if (!call) return;
        slot.pending.delete(m.id);
        if (m.state) slot.links.get(m.state.printerId)?.applyState(m.state);
        if (m.ok) call.resolve(m.value);
        else call.reject(fromWire(m.error));
        return;
      }
      case 'tick': {
        // A first state means the worker is up and well: the next crash starts the back-off from the bottom again.
        slot.policy.reset();
        for (const s of m.states) slot.links.get(s.printerId)?.applyState(s);
        for (const item of m.items) {
          if (item.kind === 'event') {
            const printerId = (item.payload as { printer_id: string }).printer_id;
            if (slot.links.has(printerId)) this.o.bus.emit(item.name, item.payload);
          } else if (item.kind === 'job-ended') slot.links.get(item.printerId)?.jobEnded(item.jobId, item.outcome, item.snapshot);
          else slot.links.get(item.printerId)?.consoleEntry(item.entry);
        }
        return;
      }
      case 'ask': {
        const link = slot.links.get(m.printerId);
        const answer = link ? link.coolOnPause().catch(() => false) : Promise.resolve(false);
        void answer.then((value) => this.post(slot, { type: 'answer', id: m.id, value }));
        return;
      }
    }
  }

  private exited(slot: Slot, worker: Worker, code: number): void {
    if (slot.worker !== worker) return;
    slot.worker = null;
    if (this.closed) return;
    const message = `the worker thread hosting this printer stopped (exit code ${code}); it is restarted and the printer reconnects`;
    const pending = [...slot.pending.values()];
    slot.pending.clear();
    for (const p of pending) p.reject(new AppError(409, 'printer_offline', `printer ${p.printerId} is offline`, message));
    for (const link of slot.links.values()) link.hostLost(message);
    const delay = slot.policy.nextDelay();
    this.o.logger.warn('printer worker stopped; restarting it', { worker: slot.index, exit_code: code, printers: slot.links.size, delay_ms: delay });
    slot.restartTimer = setTimeout(() => this.start(slot), delay);
    slot.restartTimer.unref();
  }
}
