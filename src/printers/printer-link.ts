// The one printer interface: a USB/serial session and a network printer (Moonraker, OctoPrint, PrusaLink) look the same
// to the registry, the job runner, the scheduler, the materials meter and the API. Implementations publish the bus
// events of events/event-types.ts (printer.online/offline/error, job.started/progress/paused/resumed/completed/
// failed/cancelled) exactly as the serial session does.
import type { ProtocolStats } from '../protocol/protocol-types.js';
import type { ConsoleEntry } from './session-context.js';
import type { JobHandle } from './session-job-control.js';
import type { CommandReply, PrinterSnapshot, PrinterStatus } from './printer-state.js';

/** What a job start gives the printer: our job id and the stored file. */
export interface JobStartRequest {
  jobId: string;
  filePath: string;
  /**
   * The name a network printer stores the upload under (the driver sets the extension, network-url.ts uploadName): it
   * carries our job id and the file's hash, so after our restart the print the printer is running is recognised as
   * this job (adoptJob). Serial sessions ignore it.
   */
  remoteName?: string;
  /** The file is a sliced 3MF (Bambu printers): the plate to print and its filament per slot, from the file record. */
  sliced?: SlicedStart;
  /** The job's print options, for printers that take them with a start (Bambu); others ignore them. */
  printOptions?: PrintOptions;
}

/** What a start may ask of a printer beyond the file; unset: the printer's own default. */
export interface PrintOptions {
  bed_levelling?: boolean;
  timelapse?: boolean;
  flow_calibration?: boolean;
}

/** A sliced 3MF's plate as a start needs it. */
export interface SlicedStart {
  /** 1-based plate number. */
  plate: number;
  /** The plate's G-code inside the archive (Metadata/plate_1.gcode). */
  gcode: string;
  /** Each filament slot the plate uses, with what the slice says it uses of it. */
  filaments: Array<{ slot: number; type: string | null; color: string | null; used_g: number | null; used_m: number | null }>;
}

export interface PrinterLink {
  readonly printerId: string;
  readonly url: string;
  readonly currentStatus: PrinterStatus;
  /** Status, firmware identity, temperatures, the running job's counters (with `extruded_mm` per tool), error. */
  snapshot(): PrinterSnapshot;
  /** Line counters of a streamed link (serial); null where the printer prints its own copy of the file. */
  stats(): ProtocolStats | null;
  /** When the link was identified and its line rate (null where there is none), for the printer record. */
  linkInfo(): { connectedAt: number | null; baudRate: number | null };
  /** Sent commands and the printer's replies and messages, for a console. Returns the unsubscribe function. */
  onConsole(listener: (e: ConsoleEntry) => void): () => void;
  /** Opens the link; resolves when idle (or printing a job it found), rejects with the reason of a failed attempt. */
  connect(): Promise<void>;
  /** Drops and reopens the link: the way out of `error`. */
  reconnect(): Promise<void>;
  /**
   * Closes the link until connect(). A job we stream fails with `session_closed`; a network printer goes on printing
   * its copy, and the job is followed again through adoptJob after the next start.
   */
  disconnect(): Promise<void>;
  /** Starts a job; rejects with a typed error unless idle and ready. */
  startJob(req: JobStartRequest): Promise<JobHandle>;
  /** The bed was cleared: the next job may start. */
  markReady(): void;
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** `pending` when a wait the firmware cannot break must end first: the job then shows pending_action `cancel`. */
  cancel(): Promise<'cancelled' | 'pending'>;
  home(): Promise<CommandReply>;
  cooldown(): Promise<void>;
  emergencyStop(): void;
  /** One console command; resolves with its reply lines. */
  sendCommand(text: string): Promise<CommandReply>;
  /**
   * After our restart: if the printer is printing (or paused in) the upload named `req.remoteName`, follow it as this
   * job and return its handle (it ends as the printer's print ends); null when the printer is not running it. Only
   * printers that print their own copy of the file can; a serial session has no such method.
   */
  adoptJob?(req: JobStartRequest & { startedAt: number }): Promise<JobHandle | null>;
  /**
   * Resolves after the link's own event loop had one turn since the calls made so far (a link in another thread);
   * absent, one turn of this thread's loop is that.
   */
  turn?(): Promise<void>;
  /** After disconnect() when the printer is removed or re-opened: lets go of what the link holds elsewhere (a worker's session). */
  dispose?(): void;
}
