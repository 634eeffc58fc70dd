// The one message protocol between the main thread and a link worker: every shape that crosses the thread boundary is
// declared here, so both sides type-check against the same definitions.
import type { EventName } from '../../events/event-bus.js';
import type { DomainEvents } from '../../events/event-types.js';
import type { ProtocolStats } from '../../protocol/protocol-types.js';
import type { JobStartRequest } from '../printer-link.js';
import type { CommandReply, JobOutcome, JobSnapshot, PrinterSnapshot } from '../printer-state.js';
import type { ConsoleEntry } from '../session-context.js';
import type { SessionTuning } from '../open-printer-link.js';

/** Session tuning that can cross a thread (plain data: no transport factory, no clock, no callbacks). */
export type WorkerSessionTuning = Omit<SessionTuning, 'createTransport' | 'clock' | 'coolOnPause'>;

/** What a worker is started with (its `workerData`); `role` tells main.ts to run a link worker instead of the CLI. */
export interface LinkWorkerData {
  role: 'printfarm-link-worker';
  sessionOptions: WorkerSessionTuning;
  /** How often the worker sends every link's state even when nothing was emitted (temperatures, counters). */
  sampleMs: number;
}

/** Every PrinterLink method the main thread calls on a hosted link: its arguments and what the reply carries. */
export interface LinkCalls {
  connect: { args: []; result: void };
  reconnect: { args: []; result: void };
  disconnect: { args: []; result: void };
  /** The handle stays in the worker; the main thread follows the job by its id. */
  startJob: { args: [JobStartRequest]; result: { jobId: string } };
  markReady: { args: []; result: void };
  pause: { args: []; result: void };
  resume: { args: []; result: void };
  cancel: { args: []; result: 'cancelled' | 'pending' };
  home: { args: []; result: CommandReply };
  cooldown: { args: []; result: void };
  emergencyStop: { args: []; result: void };
  sendCommand: { args: [string]; result: CommandReply };
  /** Answers after one turn of the worker's loop, with the state the calls sent before it left. */
  turn: { args: []; result: void };
}
export type LinkMethod = keyof LinkCalls;

/** A call as sent: the method and its own argument tuple, tied together. */
export type LinkCall = { [M in LinkMethod]: { method: M; args: LinkCalls[M]['args'] } }[LinkMethod];

/** What the main thread mirrors of a link so its synchronous reads (snapshot, stats, linkInfo) need no round trip. */
export interface LinkState {
  printerId: string;
  snapshot: PrinterSnapshot;
  stats: ProtocolStats | null;
  linkInfo: { connectedAt: number | null; baudRate: number | null };
}

/** An error as it crosses: an AppError keeps its status, code and details so the API answers alike in both modes. */
export interface WireError {
  message: string;
  app: { status: number; code: string; details: string } | null;
}

/** One thing that happened on a link, in the order it happened. */
export type TickItem =
  | { kind: 'event'; name: EventName; payload: DomainEvents[EventName] }
  | { kind: 'job-ended'; printerId: string; jobId: string; outcome: JobOutcome; snapshot: JobSnapshot }
  | { kind: 'console'; printerId: string; entry: ConsoleEntry };

/** Main thread -> worker. */
export type ToWorker =
  | { type: 'open'; printerId: string; url: string }
  | { type: 'close'; printerId: string }
  | ({ type: 'call'; id: number; printerId: string } & LinkCall)
  | { type: 'console'; printerId: string; on: boolean }
  | { type: 'answer'; id: number; value: boolean }
  /** Test hook: the worker throws outside any handler, as a bug would. Only the pool's own method sends it. */
  | { type: 'crash' };

/** Worker -> main thread. */
export type FromWorker =
  | { type: 'reply'; id: number; state: LinkState | null; ok: true; value: unknown }
  | { type: 'reply'; id: number; state: LinkState | null; ok: false; error: WireError }
  /** Everything a tick produced: the states of the links it touched (applied first), then its items in order. */
  | { type: 'tick'; states: LinkState[]; items: TickItem[] }
  /** The session asks the main thread (the database): turn the heaters off on this pause? */
  | { type: 'ask'; id: number; printerId: string; question: 'cool-on-pause' };
