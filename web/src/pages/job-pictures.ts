// A job's camera pictures (GET /v1/jobs/:id/snapshots): start, progress steps and end, each captioned with its moment.
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { dateTime } from '../lib/format.js';
import { useResource } from '../lib/hooks.js';
import { ErrorNote } from '../components/ui.js';
import '../styles/cameras.css';

interface JobSnapshot {
  id: string;
  moment: 'start' | 'progress' | 'completed' | 'failed' | 'cancelled';
  progress: number | null;
  taken_at: string;
  url: string;
}

const MOMENT_WORDS: Record<JobSnapshot['moment'], string> = { start: 'Start', progress: 'At', completed: 'Completed', failed: 'Failed', cancelled: 'Cancelled' };

const caption = (s: JobSnapshot): string => (s.moment === 'progress' ? `At ${Math.round(s.progress ?? 0)} %` : MOMENT_WORDS[s.moment]);

export function JobPictures({ jobId, jobName }: { jobId: string; jobName: string }) {
  const pictures = useResource(() => api.get<{ data: JobSnapshot[] }>(`/v1/jobs/${encodeURIComponent(jobId)}/snapshots`), [jobId]);
  const list = pictures.data?.data ?? [];
  return html`<div class="job-pictures">
    <${ErrorNote} error=${pictures.error} />
    ${pictures.data && list.length === 0 ? html`<p class="muted">No pictures of this job.</p>` : null}
    <ul class="job-picture-list">
      ${list.map(
        (s) => html`<li key=${s.id}><figure>
          <a href=${s.url} target="_blank" rel="noopener"><img src=${s.url} alt=${`${jobName}: ${caption(s).toLowerCase()}`} loading="lazy" width="160" height="120" /></a>
          <figcaption>${caption(s)} · ${dateTime(s.taken_at)}</figcaption>
        </figure></li>`,
      )}
    </ul>
  </div>`;
}
