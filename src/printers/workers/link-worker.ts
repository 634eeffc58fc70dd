// The worker side: hosts the real printer sessions of its share of the farm, runs the calls the main thread sends, and
// sends back, once per tick, what the sessions emitted with the state of every link that changed.
import type { MessagePort } from 'node:worker_threads';
import { AppError } from '../../errors.js';
import { EventBus } from '../../events/event-bus.js';
import type { JobHandle } from '../session-job-control.js';
import { createWorkerTransport } from '../../transport/open-transport.js';
import { PrinterSession } from '../printer-session.js';
import type { FromWorker, LinkCall, LinkState, LinkWorkerData, TickItem, ToWorker, WireError } from './link-messages.js';

export const wireError = (err: unknown): WireError => {
  const e = err instanceof Error ? err : new Error(String(err));
  return { message: e.message, app: e instanceof AppError ? { status: e.status, code: e.code, details: e.details } : null };
};

/** Runs a link worker on `port` until the thread ends. */
export function runLinkWorker(port: MessagePort, data: LinkWorkerData): void {
  const bus = new EventBus();
  const links = new Map<string, { session: PrinterSession; consoleOff: (() => void) | null }>();
  const asks = new Map<number, (value: boolean) => void>();
  let nextAsk = 1;
  let items: TickItem[] = [];
  const touched = new Set<string>();
  /** The last state sent of each link, as text. */
  const sent = new Map<string, string>();
  let queued = false;

  const post = (m: FromWorker): void => port.postMessage(m);
  const stateOf = (printerId: string): LinkState | null => {
    const s = links.get(printerId)?.session;
    return s ? { printerId, snapshot: s.snapshot(), stats: s.stats(), linkInfo: s.linkInfo() } : null;
  };
  // Whatever happens in one turn of the loop leaves as one message: the main thread writes it in one go.
  const flush = (): void => {
    queued = false;
    const states: LinkState[] = [];
    for (const id of touched) {
      const state = stateOf(id);
      if (!state) continue;
      // A state the main thread already has is not sent again: an idle farm's samples cost it nothing.
      const text = JSON.stringify(state);
      if (sent.get(id) === text) continue;
      sent.set(id, text);
      states.push(state);
    }
    touched.clear();
    const batch = items;
    items = [];
    if (states.length > 0 || batch.length > 0) post({ type: 'tick', states, items: batch });
  };
  // What the call caused (its events) reaches the main thread before its answer, as listeners ran first in one thread.
  const reply = (m: FromWorker): void => {
    flush();
    if (m.type === 'reply' && m.state) sent.set(m.state.printerId, JSON.stringify(m.state));
    post(m);
  };
  const queue = (printerId: string, item: TickItem | null): void => {
    touched.add(printerId);
    if (item) items.push(item);
    if (!queued) {
      queued = true;
      setImmediate(flush);
    }
  };
  bus.onAny((payload, name) => {
    const printerId = (payload as { printer_id?: string }).printer_id;
    if (printerId !== undefined) queue(printerId, { kind: 'event', name, payload });
  });
  // Temperatures and counters move without an event: sampled, so the main thread's reads stay fresh.
  const sampler = setInterval(() => {
    for (const id of links.keys()) queue(id, null);
  }, data.sampleMs);
  sampler.unref();

  const followJob = (printerId: string, handle: JobHandle): void => {
    void handle.finished.then((outcome) => queue(printerId, { kind: 'job-ended', printerId, jobId: handle.id, outcome, snapshot: handle.snapshot() }));
  };

  const invoke = async (session: PrinterSession, printerId: string, call: LinkCall): Promise<unknown> => {
    switch (call.method) {
      case 'connect':
        return session.connect();
      case 'reconnect':
        return session.reconnect();
      case 'disconnect':
        return session.disconnect();
      case 'startJob': {
        const handle = await session.startJob(call.args[0]);
        followJob(printerId, handle);
        return { jobId: handle.id };
      }
      case 'markReady':
        return session.markReady();
      case 'pause':
        return session.pause();
      case 'resume':
        return session.resume();
      case 'cancel':
        return session.cancel();
      case 'home':
        return session.home();
      case 'cooldown':
        return session.cooldown();
      case 'emergencyStop':
        return session.emergencyStop();
      case 'sendCommand':
        return session.sendCommand(call.args[0]);
      case 'turn':
        return new Promise<void>((resolve) => setImmediate(resolve));
    }
  };

  const handle = (m: ToWorker): void => {
    switch (m.type) {
      case 'open': {
        const ask = (): Promise<boolean> =>
          new Promise((resolve) => {
            const id = nextAsk++;
            asks.set(id, resolve);
            post({ type: 'ask', id, printerId: m.printerId, question: 'cool-on-pause' });
          });
        const session = new PrinterSession({ ...data.sessionOptions, printerId: m.printerId, url: m.url, bus, coolOnPause: ask, createTransport: createWorkerTransport });
        links.set(m.printerId, { session, consoleOff: null });
        queue(m.printerId, null);
        return;
      }
      case 'close': {
        const link = links.get(m.printerId);
        link?.consoleOff?.();
        links.delete(m.printerId);
        sent.delete(m.printerId);
        return;
      }
      case 'call': {
        const link = links.get(m.printerId);
        if (!link) {
          post({ type: 'reply', id: m.id, state: null, ok: false, error: { message: `printer ${m.printerId} has no session in this worker`, app: null } });
          return;
        }
        // A synchronous throw (emergencyStop while offline) is a refusal like a rejection.
        Promise.resolve()
          .then(() => invoke(link.session, m.printerId, m))
          .then(
            (value) => reply({ type: 'reply', id: m.id, state: stateOf(m.printerId), ok: true, value: value ?? null }),
            (err: unknown) => reply({ type: 'reply', id: m.id, state: stateOf(m.printerId), ok: false, error: wireError(err) }),
          );
        return;
      }
      case 'console': {
        const link = links.get(m.printerId);
        if (!link) return;
        link.consoleOff?.();
        link.consoleOff = m.on ? link.session.onConsole((entry) => queue(m.printerId, { kind: 'console', printerId: m.printerId, entry })) : null;
        return;
      }
      case 'answer':
        asks.get(m.id)?.(m.value);
        asks.delete(m.id);
        return;
      case 'crash':
        // Thrown from a timer, outside every handler: an uncaught exception that ends the thread, as a bug would.
        setImmediate(() => {
          throw new Error('link worker crash requested by a test');
        });
        return;
    }
  };
  port.on('message', handle);
}
