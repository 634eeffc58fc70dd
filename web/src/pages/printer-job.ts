// The printer's current job: name, progress bar, elapsed time and ETA (kept fresh by job.progress and telemetry), a pending pause/cancel.
import { html } from '../lib/html.js';
import { duration } from '../lib/format.js';
import { href } from '../lib/router.js';
import { ErrorNote, ProgressBar, StatusBadge } from '../components/ui.js';
import { ExternalJob } from '../components/printer-kind.js';
import type { Printer } from './printer-types.js';
import type { Job } from './queue-types.js';
import { useNow } from './printer-hooks.js';

interface Props {
  job: Job | undefined;
  /** When `job` was read (elapsed and remaining advance from there while it prints). */
  readAt: number;
  /** Live percent from telemetry (newer than the job's own). */
  progress: number | null;
  error: string | null;
  hasJob: boolean;
  /** A print started on the printer itself (no job of ours: shown with the printer's percentage only). */
  external?: Printer['external_job'];
  printerName?: string;
}

export function CurrentJob({ job, readAt, progress, error, hasJob, external, printerName = 'the printer' }: Props) {
  const now = useNow(15_000);
  if (!hasJob && external) {
    return html`<section class="card current-job" aria-labelledby="job-title">
      <h2 id="job-title">Current job</h2>
      <${ExternalJob} job=${external} printerName=${printerName} />
      <p class="hint">Started on the printer itself${external.started_at ? ` at ${new Date(external.started_at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}` : ''}: pause, resume or cancel it there. The scheduler sends this printer nothing until it ends; then it is recorded in the job history.</p>
    </section>`;
  }
  if (!hasJob) {
    return html`<section class="card current-job" aria-labelledby="job-title">
      <h2 id="job-title">Current job</h2>
      <p class="empty">Nothing is printing. Queued jobs start here when the scheduler picks this printer (see the <a href=${href('queue')}>queue</a>).</p>
    </section>`;
  }
  if (!job) {
    return html`<section class="card current-job" aria-labelledby="job-title" aria-busy=${error ? undefined : 'true'}>
      <h2 id="job-title">Current job</h2>
      ${error ? html`<${ErrorNote} error=${error} />` : html`<p>Loading the job…</p>`}
    </section>`;
  }
  const since = job.status === 'printing' ? Math.max(0, (now - readAt) / 1000) : 0;
  const elapsed = job.elapsed_time + since;
  const remaining = job.estimated_remaining === null ? null : Math.max(0, job.estimated_remaining - since);
  const eta = remaining === null ? null : new Date(now + remaining * 1000);
  const pct = progress ?? job.progress;
  return html`<section class="card current-job" aria-labelledby="job-title">
    <h2 id="job-title">Current job</h2>
    <p class="job-name"><strong>${job.name}</strong> <${StatusBadge} status=${job.status} /></p>
    ${job.pending_action
      ? html`<p class="badge status-warning pending-action" role="status" data-pending=${job.pending_action}>
          ${job.pending_action === 'pause' ? 'Pause' : 'Cancel'} accepted: the printer first finishes what it is doing (the moves it holds, or a heat-up)
        </p>`
      : null}
    <${ProgressBar} value=${pct} label=${`Progress of ${job.name}`} />
    <dl class="facts">
      <div><dt>Elapsed</dt><dd>${duration(elapsed)}</dd></div>
      <div><dt>Remaining</dt><dd>${remaining === null ? 'unknown (no slicer estimate yet)' : duration(remaining)}</dd></div>
      <div><dt>Finishes</dt><dd>${eta ? eta.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) : '–'}${job.status === 'paused' ? ' (paused: the clock stops)' : ''}</dd></div>
      ${job.material.type ? html`<div><dt>Material</dt><dd>${job.material.type}${job.material.color ? ` ${job.material.color}` : ''}</dd></div>` : null}
    </dl>
    <${ErrorNote} error=${error} />
  </section>`;
}
