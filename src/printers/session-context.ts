// What the parts of a printer session (handshake, keep-alive, job control) share with the session that owns the link.
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/event-bus.js';
import type { ExtrusionTracker } from '../protocol/extrusion-tracker.js';
import type { FirmwareProfile } from '../protocol/firmware-profile.js';
import type { HostProtocol } from '../protocol/host-protocol.js';
import type { Temperatures } from '../protocol/protocol-types.js';
import type { CommandReply, PrinterStatus } from './printer-state.js';
import type { PreparedGcodeCache } from './prepared-gcode-cache.js';
import type { HeaterTargets } from './session-scripts.js';
import type { SessionTimer } from './session-timer.js';

export type CommandCallback = (reply: CommandReply | null, error: Error | null) => void;

/** A unsolicited or sent line, for a console view. */
export interface ConsoleEntry {
  direction: 'sent' | 'received';
  kind: 'command' | 'info' | 'warning' | 'fatal' | 'busy' | 'action' | 'noise';
  text: string;
}

/** The session seen from one of its parts: state is read through it and changed only through its methods. */
export interface SessionContext {
  readonly printerId: string;
  readonly bus: EventBus;
  /** monotonic() for every duration and timeout (protocol, timer, job time); now() only for timestamps people read. */
  readonly clock: Clock;
  /** The session's one timer: parts schedule named deadlines on it. */
  readonly timer: SessionTimer;
  /** Heater targets followed from the lines sent. */
  readonly targets: HeaterTargets;
  /** G-code files read and parsed once, shared by the printers printing them. */
  readonly preparedFiles?: PreparedGcodeCache;
  status(): PrinterStatus;
  setStatus(status: PrinterStatus): void;
  profile(): FirmwareProfile;
  /** The live link's protocol, or null when there is no link. */
  protocol(): HostProtocol | null;
  /** The link's filament tracker: every acknowledged line, job and command alike, in the order the firmware ran them. */
  extrusion(): ExtrusionTracker;
  temperatures(): Temperatures;
  /** Whether a pause turns the heaters off (the organization's setting, read at each pause). */
  coolOnPause(): Promise<boolean>;
  /** Queues a command on the link (shown on the console); the callback gets the reply or the error. */
  send(text: string, cb: CommandCallback): void;
  /** send() as a promise that rejects with the error. */
  command(text: string): Promise<CommandReply>;
  /** Sends script lines back to back (the protocol paces them); resolves with every reply, in order. */
  runScript(lines: string[]): Promise<CommandReply[]>;
  /** Feeds the job, applies the protocol's actions, writes, re-arms the timer. */
  flush(): void;
  emitConsole(direction: ConsoleEntry['direction'], kind: ConsoleEntry['kind'], text: string): void;
}
