// Pure: OctoPrint's state, job and progress (REST or push `current`) in our vocabulary: status, job activity, offline
// reason, temperatures, how a print ended, and which log lines answer a console command. Tested with tables.
import type { Temperatures } from '../../protocol/protocol-types.js';
import type { OfflineReason, PrinterStatus } from '../printer-state.js';
import type { HttpFailureKind } from './octoprint-http-client.js';

/** The state object of /api/printer and the push socket's `current.state` (the flags are optional: be lenient). */
export interface OpState {
  text?: string;
  flags?: Partial<Record<string, boolean>>;
  error?: string | null;
}

export interface OpJobFile {
  name?: string | null;
  path?: string | null;
  display?: string | null;
  size?: number | null;
  origin?: string | null;
}

export interface OpProgress {
  completion?: number | null;
  filepos?: number | null;
  printTime?: number | null;
}

/** What one update (a push `current`, or one round of polling) says. */
export interface OpCurrent {
  state: OpState;
  job?: { file?: OpJobFile | null } | null;
  progress?: OpProgress | null;
  temps?: unknown;
  logs?: unknown;
}

/** Where a print is inside OctoPrint's states; `none` when the printer is not up. */
export type OpActivity = 'idle' | 'starting' | 'printing' | 'pausing' | 'paused' | 'resuming' | 'cancelling' | 'finishing' | 'none';

export interface MappedState {
  status: PrinterStatus;
  activity: OpActivity;
  offlineReason: OfflineReason | null;
  /** For `error`/`offline`: what to show. */
  message: string | null;
}

/** OctoPrint's state (flags first, its text where a flag is missing) as our status. */
export function mapState(state: OpState): MappedState {
  const flags = state.flags ?? {};
  const text = (state.text ?? '').trim();
  const has = (flag: string, ...texts: string[]): boolean => flags[flag] === true || texts.some((t) => text.toLowerCase().startsWith(t.toLowerCase()));
  if (has('error', 'Error', 'Offline after error')) {
    const message = state.error?.trim() || text || 'the printer reported an error';
    return { status: 'error', activity: 'none', offlineReason: 'firmware_error', message };
  }
  if (has('cancelling', 'Cancelling')) return busy('printing', 'cancelling');
  if (has('pausing', 'Pausing')) return busy('printing', 'pausing');
  if (has('paused', 'Paused')) return busy('paused', 'paused');
  if (has('resuming', 'Resuming')) return busy('printing', 'resuming');
  if (has('finishing', 'Finishing')) return busy('printing', 'finishing');
  if (/^Starting/i.test(text)) return busy('printing', 'starting');
  if (has('printing', 'Printing')) return busy('printing', 'printing');
  if (flags.operational === true || /^Operational/i.test(text)) return busy('idle', 'idle');
  // Offline, Opening serial connection, Detecting..., Connecting: OctoPrint runs but has no usable printer.
  return {
    status: 'offline',
    activity: 'none',
    offlineReason: 'printer_disconnected',
    message: `OctoPrint is up but its printer is not connected (${text || 'no state'})`,
  };
}

function busy(status: PrinterStatus, activity: OpActivity): MappedState {
  return { status, activity, offlineReason: null, message: null };
}

/** A failed request as an offline reason. */
export function offlineReasonFor(kind: HttpFailureKind): OfflineReason {
  if (kind === 'auth') return 'auth_failed';
  if (kind === 'tls') return 'tls_error';
  // Refused, timed out, a 5xx, HTML or garbage: nothing at the address answers as OctoPrint's API does.
  return 'unreachable';
}

export interface JobView {
  /** The path OctoPrint prints (the upload's name in `local`), or its name. */
  fileName: string;
  filepos: number | null;
  size: number | null;
  /** Percent 0..100: OctoPrint's completion, else the share of the file read. */
  progress: number;
  printSeconds: number | null;
}

/** The job and progress of an update; null when no file is selected. */
export function mapJob(current: Pick<OpCurrent, 'job' | 'progress'>): JobView | null {
  const file = current.job?.file;
  const fileName = file?.path || file?.name;
  if (!fileName) return null;
  const size = finite(file?.size);
  const filepos = finite(current.progress?.filepos);
  const completion = finite(current.progress?.completion);
  let progress = 0;
  if (completion !== null) progress = completion;
  else if (filepos !== null && size) progress = (filepos / size) * 100;
  return { fileName, filepos, size, progress: clamp(progress, 0, 100), printSeconds: finite(current.progress?.printTime) };
}

/** Whether the printer's job is our upload `remoteName` (in the `local` storage, at its top level). */
export function isOurUpload(job: JobView | null, remoteName: string): boolean {
  if (!job) return false;
  return job.fileName === remoteName || job.fileName === `/${remoteName}`;
}

export type EndStatus = 'completed' | 'cancelled' | 'failed';

/**
 * How a print ended when no push event told us: an error state is a failure, a cancel we asked for or a `Cancelling`
 * state is a cancel, the whole file read is a completion, anything else stopped early from elsewhere (a cancel).
 */
export function inferEnd(e: { now: MappedState; lastActivity: OpActivity; cancelRequested: boolean; lastFilepos: number | null; size: number | null; lastProgress: number }): EndStatus {
  if (e.now.status === 'error') return 'failed';
  if (e.cancelRequested || e.lastActivity === 'cancelling') return 'cancelled';
  if (e.lastActivity === 'finishing') return 'completed';
  if (e.size !== null && e.lastFilepos !== null && e.lastFilepos >= e.size) return 'completed';
  if (e.lastProgress >= 99.95) return 'completed';
  if (e.now.status === 'offline') return 'failed';
  return 'cancelled';
}

/** Push `event` types that end a print, and how. */
export function endFromEvent(type: string): EndStatus | null {
  if (type === 'PrintDone') return 'completed';
  if (type === 'PrintCancelled') return 'cancelled';
  if (type === 'PrintFailed') return 'failed';
  return null;
}

/** `temperature` of /api/printer ({tool0, bed, chamber}) or the last point of the push `temps` list, as ours. */
export function mapTemperatures(source: unknown): Temperatures | null {
  const point = Array.isArray(source) ? source[source.length - 1] : source;
  if (!point || typeof point !== 'object') return null;
  const p = point as Record<string, { actual?: unknown; target?: unknown } | undefined>;
  const out: Temperatures = {};
  const tools: Array<{ actual: number; target?: number }> = [];
  for (let i = 0; p[`tool${i}`]; i++) {
    const t = p[`tool${i}`]!;
    const actual = finite(t.actual);
    if (actual === null) break;
    const target = finite(t.target);
    tools.push(target === null ? { actual } : { actual, target });
  }
  if (tools.length > 0) {
    out.hotend = tools[0]!.actual;
    if (tools[0]!.target !== undefined) out.hotend_target = tools[0]!.target;
    if (tools.length > 1) out.tools = tools;
  }
  for (const [key, actualKey, targetKey] of [
    ['bed', 'bed', 'bed_target'],
    ['chamber', 'chamber', 'chamber_target'],
  ] as const) {
    const h = p[key];
    const actual = finite(h?.actual);
    if (actual === null) continue;
    out[actualKey] = actual;
    const target = finite(h?.target);
    if (target !== null) out[targetKey] = target;
  }
  return Object.keys(out).length > 0 ? out : null;
}

/** A `Send:` log line's command without line number and checksum (`Send: N12 M105*35` -> `M105`). */
export function sentCommand(line: string): string | null {
  const m = /^Send:\s*(.*)$/.exec(line);
  if (!m) return null;
  return m[1]!.replace(/^N\d+\s+/, '').replace(/\*\d+\s*$/, '').trim();
}

/**
 * Follows the terminal log for the reply to one command: from its `Send:` line, the `Recv:` lines up to its `ok` (or
 * an error). Temperature autoreports, `wait` and busy lines that fall in between are not the reply.
 */
export class ReplyMatcher {
  private seen = false;
  private readonly lines: string[] = [];

  constructor(private readonly command: string) {}

  /** Feeds one log line; returns the reply once complete. */
  feed(line: string): { ok: boolean; lines: string[] } | null {
    if (!this.seen) {
      const sent = sentCommand(line);
      if (sent !== null && sent.toUpperCase() === this.command.toUpperCase()) this.seen = true;
      return null;
    }
    const m = /^Recv:\s?(.*)$/.exec(line);
    if (!m) return null;
    const text = m[1]!.trim();
    if (text === '' || text === 'wait' || /^echo:busy/i.test(text)) return null;
    const isM105 = /^M105\b/i.test(this.command);
    if (!isM105 && /^T\d?:|^B:/.test(text)) return null;
    if (/^ok\b/.test(text)) {
      const rest = text.slice(2).trim();
      if (rest !== '') this.lines.push(rest);
      return { ok: true, lines: [...this.lines] };
    }
    this.lines.push(text);
    if (/^(Error|!!)/.test(text)) return { ok: false, lines: [...this.lines] };
    return null;
  }
}

function finite(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
