// The forecast timeline (GET /v1/queue/forecast): one row per printer with its current print and the queued jobs the
// scheduler expects it to take, as blocks on a time axis and as start–end times in text.
import { html } from '../lib/html.js';
import { duration } from '../lib/format.js';
import { href } from '../lib/router.js';
import { Empty, ErrorNote, StatusBadge } from '../components/ui.js';
import type { Forecast, Job } from './queue-types.js';
import { waitingWords } from './queue-waiting.js';
import { statusKey, type Printer } from './printer-types.js';
import { now as serverNow } from '../lib/clock.js';

interface Block {
  jobId: string;
  name: string;
  start: number;
  end: number;
  kind: 'current' | 'forecast';
  /** The length is a guess (no slicer estimate: one hour assumed). */
  guess: boolean;
  status?: string;
}

const STEPS_MIN = [5, 10, 15, 30, 60, 120, 180, 360, 720, 1440];
const MAX_TICKS = 4;
const HOUR = 3600_000;

/** The time of `ms`, with its weekday when that is another day than `ref`'s (now, or the tick before on the axis). */
function clock(ms: number, ref: number): string {
  const d = new Date(ms);
  const t = d.toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' });
  return new Date(ref).toDateString() === d.toDateString() ? t : `${d.toLocaleDateString(undefined, { weekday: 'short' })} ${t}`;
}

/** The axis: from now to a little after the last end (at least half an hour), with round ticks. */
function axis(now: number, lastEnd: number) {
  const span = Math.max(HOUR / 2, (lastEnd - now) * 1.05);
  const stepMin = STEPS_MIN.find((m) => span / (m * 60_000) <= MAX_TICKS) ?? 1440;
  const step = stepMin * 60_000;
  const end = now + Math.ceil(span / step) * step;
  const ticks: number[] = [];
  for (let t = Math.ceil(now / step) * step; t <= end; t += step) ticks.push(t);
  return { start: now, end, ticks };
}

function blocksByPrinter(printers: Printer[], running: Job[], forecast: Forecast, now: number): Map<string, Block[]> {
  const map = new Map<string, Block[]>(printers.map((p) => [p.id, []]));
  for (const j of running) {
    if (!j.printer_id) continue;
    const left = j.estimated_remaining ?? 3600;
    map.get(j.printer_id)?.push({
      jobId: j.id, name: j.name, start: now, end: now + left * 1000, kind: 'current', guess: j.estimated_remaining === null, status: j.status,
    });
  }
  for (const e of forecast.entries) {
    const list = map.get(e.printer_id) ?? [];
    list.push({ jobId: e.job_id, name: e.job_name, start: Date.parse(e.start_at), end: Date.parse(e.end_at), kind: 'forecast', guess: e.uses_default_duration });
    map.set(e.printer_id, list);
  }
  for (const list of map.values()) list.sort((a, b) => a.start - b.start);
  return map;
}

interface Props {
  forecast: Forecast | undefined;
  error: string | null;
  printers: Printer[];
  /** Printing and paused jobs (their remaining time makes the first block of a row). */
  running: Job[];
  /** Names of queued jobs, for the unplaced list. */
  names: Map<string, string>;
}

export function ForecastTimeline({ forecast, error, printers, running, names }: Props) {
  const body = () => {
    if (!forecast) return error ? null : html`<p aria-busy="true">Loading the forecast…</p>`;
    const now = Date.parse(forecast.generated_at) || serverNow();
    const rows = blocksByPrinter(printers, running, forecast, now);
    const lastEnd = Math.max(now, ...[...rows.values()].flat().map((b) => b.end));
    const ax = axis(now, lastEnd);
    const pos = (t: number) => ((Math.min(Math.max(t, ax.start), ax.end) - ax.start) / (ax.end - ax.start)) * 100;
    if (printers.length === 0) return html`<${Empty}>No printers yet: add one and the forecast shows what it will print.<//>`;
    return html`
      <div class="fc-axis" aria-hidden="true">
        <span class="fc-axis-label">Now ${clock(now, now)}</span>
        <div class="fc-ticks">${ax.ticks.map((t, i) => html`<span class=${`fc-tick${i % 2 ? ' odd' : ''}`} style=${{ left: `${pos(t)}%` }}>${clock(t, i === 0 ? now : ax.ticks[i - 1]!)}</span>`)}</div>
      </div>
      <ul class="fc-rows">
        ${printers.map((p) => {
          const blocks = rows.get(p.id) ?? [];
          return html`<li key=${p.id} class="fc-row">
            <div class="fc-printer"><a href=${href('printers', p.id)}>${p.name}</a> <${StatusBadge} status=${statusKey(p)} /></div>
            <div class="fc-track" aria-hidden="true">
              ${ax.ticks.map((t) => html`<span class="fc-grid" style=${{ left: `${pos(t)}%` }}></span>`)}
              ${blocks.map(
                (b) => html`<span class=${`fc-block ${b.kind}${b.guess ? ' guess' : ''}`} title=${`${b.name}: ${clock(b.start, now)}–${clock(b.end, now)}`}
                  style=${{ left: `${pos(b.start)}%`, width: `${Math.max(0.8, pos(b.end) - pos(b.start))}%` }}>${b.name}</span>`,
              )}
            </div>
            <ul class="fc-text">
              ${blocks.length === 0
                ? html`<li class="hint">${p.status === 'offline' || p.status === 'error' ? 'Offline: takes no jobs until it is connected.' : 'Nothing planned.'}</li>`
                : blocks.map(
                    (b) => html`<li key=${b.jobId}>
                      <span class="fc-time">${b.kind === 'current' ? 'now' : clock(b.start, now)}–${clock(b.end, now)}</span>
                      ${' '}<span>${b.name}</span>
                      ${b.kind === 'current' ? html` <small class="hint">(${b.status === 'paused' ? 'paused' : 'printing'}${b.guess ? ', end unknown' : `, ${duration((b.end - now) / 1000)} left`})</small>` : null}
                      ${b.kind === 'forecast' && b.guess ? html` <small class="hint">(no estimate in the file: one hour assumed)</small>` : null}
                    </li>`,
                  )}
            </ul>
          </li>`;
        })}
      </ul>
      ${forecast.unplaced.length > 0
        ? html`<h3>Not planned</h3>
            <ul class="fc-unplaced">
              ${forecast.unplaced.map((u) => {
                const w = waitingWords(u.reason);
                return html`<li key=${u.job_id}><strong>${names.get(u.job_id) ?? u.job_id}</strong>: ${w.why} ${w.todo}</li>`;
              })}
            </ul>`
        : null}
      <p class="hint">Estimated from the slicers' print times; it does not foresee failed prints, spools running out or the power budget.</p>`;
  };
  return html`<section class="card forecast" aria-labelledby="forecast-title">
    <h2 id="forecast-title">Forecast</h2>
    <${ErrorNote} error=${error} />
    ${body()}
  </section>`;
}
