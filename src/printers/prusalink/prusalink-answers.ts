// What PrusaLink's v1 answers say, read defensively: a shape we cannot use is garbage with a clear message, never a crash.
import type { Temperatures } from '../../protocol/protocol-types.js';
import { PrusaLinkRequestError } from './prusalink-http.js';
import { stateMeaning, type PrusaLinkState, type StateMeaning } from './prusalink-states.js';

export interface StatusAnswer {
  state: PrusaLinkState;
  meaning: StateMeaning;
  temperatures: Temperatures;
  /** The job part of /api/v1/status, when there is one. */
  job: { id: number; progress: number; timePrintingS: number | null } | null;
  /** `printer.status_printer`: ok false means the host software lost its printer (PrusaLink on a Pi). */
  printerOk: boolean | null;
  message: string | null;
}

export interface JobAnswer {
  id: number;
  state: string;
  progress: number;
  timePrintingS: number | null;
  /** Long name (display_name), else the short one. */
  fileName: string | null;
  /** The short (8.3) name on firmware that keeps one. */
  shortName: string | null;
  path: string | null;
  size: number | null;
}

export interface VersionAnswer {
  /** "PrusaLink 0.7.0" or the firmware's own text. */
  text: string;
  firmware: string | null;
  api: string | null;
}

const garbage = (what: string, why: string): PrusaLinkRequestError =>
  new PrusaLinkRequestError('unreachable', `${what}: the answer makes no sense (${why})`);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const clampPct = (p: number): number => Math.min(100, Math.max(0, p));

export function readStatus(data: unknown): StatusAnswer {
  const what = 'GET /api/v1/status';
  if (!isObject(data) || !isObject(data.printer)) throw garbage(what, 'no printer object');
  const p = data.printer;
  const meaning = stateMeaning(p.state);
  if (!meaning) throw garbage(what, `unknown printer state ${JSON.stringify(p.state)}`);
  const temperatures: Temperatures = {};
  const set = (key: keyof Temperatures, v: unknown): void => {
    const n = num(v);
    if (n !== undefined) (temperatures as Record<string, number>)[key] = n;
  };
  set('hotend', p.temp_nozzle);
  set('hotend_target', p.target_nozzle);
  set('bed', p.temp_bed);
  set('bed_target', p.target_bed);
  let job: StatusAnswer['job'] = null;
  if (isObject(data.job) && num(data.job.id) !== undefined) {
    job = { id: num(data.job.id)!, progress: clampPct(num(data.job.progress) ?? 0), timePrintingS: num(data.job.time_printing) ?? null };
  }
  const sp = isObject(p.status_printer) ? p.status_printer : null;
  return {
    state: p.state as PrusaLinkState,
    meaning,
    temperatures,
    job,
    printerOk: sp && typeof sp.ok === 'boolean' ? sp.ok : null,
    message: str(sp?.message) ?? null,
  };
}

/** /api/v1/job: null for 204 (no job). */
export function readJob(data: unknown): JobAnswer | null {
  if (data === null) return null;
  const what = 'GET /api/v1/job';
  if (!isObject(data) || num(data.id) === undefined) throw garbage(what, 'no job id');
  const file = isObject(data.file) ? data.file : {};
  return {
    id: num(data.id)!,
    state: str(data.state) ?? '',
    progress: clampPct(num(data.progress) ?? 0),
    timePrintingS: num(data.time_printing) ?? null,
    fileName: str(file.display_name) ?? str(file.name),
    shortName: str(file.name),
    path: str(file.path),
    size: num(file.size) ?? null,
  };
}

export function readVersion(data: unknown): VersionAnswer {
  if (!isObject(data)) throw garbage('GET /api/version', 'not an object');
  const text = str(data.text) ?? str(data.hostname) ?? null;
  if (text === null && str(data.api) === null) throw garbage('GET /api/version', 'no text nor api version');
  return { text: text ?? 'PrusaLink', firmware: str(data.firmware), api: str(data.api) };
}

/** Whether the printer's job is the upload named `remoteName` (long name, short name or the path's last part). */
export function jobIsFile(job: JobAnswer, remoteName: string): boolean {
  const last = (s: string | null): string | null => (s === null ? null : s.slice(s.lastIndexOf('/') + 1));
  return job.fileName === remoteName || last(job.fileName) === remoteName || last(job.path) === remoteName;
}
