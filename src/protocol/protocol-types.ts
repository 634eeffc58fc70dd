// The contract of the pure protocol core: what a printer session feeds in and what it must carry out. No I/O, no clock reads.
import type { FirmwareProfile } from './firmware-profile.js';

/** Temperatures as reported (°C); absent heaters are undefined. Extra tools go in `tools`. */
export interface Temperatures {
  hotend?: number;
  hotend_target?: number;
  bed?: number;
  bed_target?: number;
  chamber?: number;
  chamber_target?: number;
  /** T0, T1, ... when the firmware reports several tools. */
  tools?: Array<{ actual: number; target?: number }>;
}

export interface FirmwareInfo {
  /** FIRMWARE_NAME as reported by M115, e.g. "Marlin bugfix-2.1.x". */
  name: string;
  /** Every key:value of the M115 line (MACHINE_TYPE, PROTOCOL_VERSION, ...). */
  fields: Record<string, string>;
  /** Cap:NAME:0|1 lines; an unlisted capability is unsupported. */
  capabilities: Record<string, boolean>;
}

/** Where a line comes from: a streamed job file, or a command from the console/API/session (handshake, pause scripts). */
export type LineOrigin = 'job' | 'command';

/** Something the session must do, or learn, after an input. Returned in order by HostProtocol.takeActions(). */
export type ProtocolAction =
  /** Bytes to write to the transport now (one or several framed lines, or a raw emergency sequence). */
  | { type: 'write'; data: string }
  /** A job line was acknowledged by the firmware. `bytes` is the size the line had in the source file (progress by bytes). */
  | { type: 'job-acked'; jobLine: number; bytes: number }
  /** A command finished; `lines` are the reply lines that arrived for it (including the `ok` line's data). */
  | { type: 'command-done'; commandId: number; ok: boolean; lines: string[] }
  | { type: 'temperatures'; temperatures: Temperatures }
  | { type: 'firmware-info'; info: FirmwareInfo }
  /** The firmware said busy/processing: a long command runs. */
  | { type: 'busy'; text: string }
  /** `//action:NAME ...` host action command (pause, resume, cancel, disconnect, prompt_*). */
  | { type: 'host-action'; name: string; argument: string }
  /** Informational line (echo:, //, unrecognised text): for the console log. */
  | { type: 'info'; text: string }
  /** The firmware reported an error it survives (unknown command ...). */
  | { type: 'firmware-warning'; text: string }
  /** The firmware halted (Printer halted, Thermal Runaway, MAXTEMP, !!, fatal:): the print is over. */
  | { type: 'firmware-fatal'; text: string }
  /** The firmware restarted (`start` after the handshake): line numbers are reset, anything in flight is lost. */
  | { type: 'firmware-reset' }
  /** The protocol cannot go on safely (resend outside history, impossible resend number, ok-timeouts exhausted). */
  | { type: 'protocol-failure'; code: 'resend_out_of_history' | 'resend_invalid' | 'ok_timeout' | 'resend_storm'; message: string };

/** Counters for the stream summary and the benchmark. */
export interface ProtocolStats {
  linesSent: number;
  linesAcked: number;
  bytesWritten: number;
  resends: number;
  /** Lines written again because of resend requests. */
  linesResent: number;
  timeouts: number;
  /** Extra `ok`s that matched nothing in flight (ignored, credits capped). */
  spuriousOks: number;
  /**
   * Error lines about a command or the firmware itself (unknown command, halted, thermal runaway); the line-number and
   * checksum complaints that come with a resend request are not counted here (they show in `resends`).
   */
  firmwareErrors: number;
}

export interface HostProtocolOptions {
  profile: FirmwareProfile;
  /** How many sent lines are kept for resend replays (defaults to the profile's history size). */
  historySize?: number;
}
