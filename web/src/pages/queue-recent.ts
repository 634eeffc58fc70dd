// Recently finished jobs (the last 20 completed, failed or cancelled), in a collapsible section loaded when first opened.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api, type Page } from '../lib/api.js';
import { dateTime, duration } from '../lib/format.js';
import { href } from '../lib/router.js';
import { useReloadOn, useResource } from '../lib/hooks.js';
import { Empty, ErrorNote, StatusBadge } from '../components/ui.js';
import { FINISHED_STATUSES, type Job } from './queue-types.js';
import type { Printer } from './printer-types.js';

const COUNT = 20;

/** One read: the list takes several statuses at once, newest end first. */
async function loadFinished(): Promise<Job[]> {
  const page = await api.get<Page<Job>>('/v1/jobs', { status: FINISHED_STATUSES, sort: '-completed_at', per_page: COUNT });
  return page.data;
}

function outcome(j: Job): string {
  if (j.status === 'failed') return j.error?.message ?? 'failed';
  if (j.status === 'cancelled') return j.started_at ? `cancelled after ${duration(j.elapsed_time)}` : 'cancelled before it started';
  return `${duration(j.elapsed_time)} printing`;
}

function RecentTable({ printers }: { printers: Map<string, Printer> }) {
  const jobs = useResource(loadFinished, []);
  useReloadOn(['job.completed', 'job.failed', 'job.cancelled'], jobs, 1000);
  const list = jobs.data ?? [];
  return html`<div>
    <${ErrorNote} error=${jobs.error} />
    ${jobs.data && list.length === 0 ? html`<${Empty}>No job has finished yet.<//>` : null}
    ${!jobs.data && !jobs.error ? html`<p aria-busy="true">Loading…</p>` : null}
    ${list.length > 0
      ? html`<div class="table-wrap"><table class="data">
          <thead><tr><th scope="col">Job</th><th scope="col">Result</th><th scope="col">Printer</th><th scope="col">Ended</th><th scope="col">Details</th></tr></thead>
          <tbody>
            ${list.map(
              (j) => html`<tr key=${j.id}>
                <td>${j.name}</td>
                <td><${StatusBadge} status=${j.status} /></td>
                <td>${j.printer_id ? html`<a href=${href('printers', j.printer_id)}>${printers.get(j.printer_id)?.name ?? j.printer_id}</a>` : '–'}</td>
                <td>${dateTime(j.completed_at ?? j.updated_at)}</td>
                <td>${outcome(j)}</td>
              </tr>`,
            )}
          </tbody>
        </table></div>`
      : null}
  </div>`;
}

export function RecentJobs({ printers }: { printers: Map<string, Printer> }) {
  const [open, setOpen] = useState(false);
  return html`<section class="card recent" aria-labelledby="recent-title">
    <details onToggle=${(e: Event) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary><h2 id="recent-title">Recently finished</h2> <span class="hint">last ${COUNT} completed, failed or cancelled</span></summary>
      ${open ? html`<${RecentTable} printers=${printers} />` : null}
    </details>
  </section>`;
}
