// This printer's jobs (GET /v1/jobs?printer_id=…), newest first, a page at a time; reloaded when a job event names the printer.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api, type Page } from '../lib/api.js';
import { dateTime, duration } from '../lib/format.js';
import { href } from '../lib/router.js';
import { useLive, useResource } from '../lib/hooks.js';
import { useCoalesced } from './printer-hooks.js';
import { Button, Empty, ErrorNote, StatusBadge } from '../components/ui.js';
import type { Job } from './queue-types.js';
import { JobPictures } from './job-pictures.js';

const PER_PAGE = 10;

function outcome(j: Job): string {
  if (j.status === 'failed') return j.error ? j.error.message : 'Failed';
  if (j.status === 'completed' || j.status === 'cancelled') return j.elapsed_time ? `${duration(j.elapsed_time)} printing` : '';
  if (j.status === 'queued') return 'Pinned to this printer, waiting';
  return `${Math.round(j.progress)} % done`;
}

/** The job's pictures, read only when opened. */
function PicturesToggle({ job }: { job: Job }) {
  const [open, setOpen] = useState(false);
  return html`<details class="job-pictures-toggle" onToggle=${(e: Event) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
    <summary>Pictures<span class="visually-hidden"> of ${job.name}</span></summary>
    ${open ? html`<${JobPictures} jobId=${job.id} jobName=${job.name} />` : null}
  </details>`;
}

export function PrinterJobs({ printerId }: { printerId: string }) {
  const [page, setPage] = useState(1);
  const jobs = useResource(
    () => api.get<Page<Job>>('/v1/jobs', { printer_id: printerId, sort: '-created_at', per_page: PER_PAGE, page }),
    [printerId, page],
  );
  // Only this printer's job changes (a start, pause, end...); progress steps do not change the table's columns.
  const refresh = useCoalesced(() => void jobs.reload(), 1000);
  useLive(['job.*'], (e) => {
    if (e.type !== 'job.progress' && (e.data.object as Job).printer_id === printerId) refresh();
  });
  const list = jobs.data?.data ?? [];
  const pg = jobs.data?.pagination;
  return html`<section class="card printer-jobs" aria-labelledby="history-title">
    <h2 id="history-title">Job history</h2>
    <${ErrorNote} error=${jobs.error} />
    ${jobs.data && list.length === 0 ? html`<${Empty}>No job has been pinned to or printed on this printer yet.<//>` : null}
    ${list.length > 0
      ? html`<div class="table-wrap"><table class="data">
          <thead><tr><th scope="col">Job</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Ended</th><th scope="col">Outcome</th><th scope="col">Pictures</th></tr></thead>
          <tbody>
            ${list.map(
              (j) => html`<tr key=${j.id}>
                <td><a href=${`${href('queue')}?job=${encodeURIComponent(j.id)}`}>${j.name}</a></td>
                <td><${StatusBadge} status=${j.status} /></td>
                <td>${dateTime(j.created_at)}</td>
                <td>${dateTime(j.completed_at)}</td>
                <td>${outcome(j)}</td>
                <td>${j.last_snapshot_url ? html`<${PicturesToggle} job=${j} />` : html`<span class="muted">none</span>`}</td>
              </tr>`,
            )}
          </tbody>
        </table></div>`
      : null}
    ${pg && pg.total_pages > 1
      ? html`<nav class="row pager" aria-label="Job history pages">
          <${Button} disabled=${page <= 1} onClick=${() => setPage(page - 1)}>Newer<//>
          <span>Page ${pg.page} of ${pg.total_pages}</span>
          <${Button} disabled=${page >= pg.total_pages} onClick=${() => setPage(page + 1)}>Older<//>
        </nav>`
      : null}
  </section>`;
}
