// The live queue: printing and paused jobs, then queued ones in the scheduler's order, each with its priority controls,
// material, target, status, why it waits (in words, with what to do), progress and a cancel button.
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction } from '../lib/hooks.js';
import { duration, grams, relative } from '../lib/format.js';
import { href } from '../lib/router.js';
import { Button, ConfirmButton, Empty, ErrorNote, ProgressBar, StatusBadge, Swatch } from '../components/ui.js';
import { PRIORITIES, PRIORITY_WORDS, priorityStep, type Job, type Priority } from './queue-types.js';
import { waitingWords } from './queue-waiting.js';
import type { Printer } from './printer-types.js';

interface Props {
  jobs: Job[];
  printers: Map<string, Printer>;
  canWrite: boolean;
  /** The job named in the address (#/queue?job=…), highlighted. */
  focus: string | null;
  /** A job as an answer showed it (PATCH, DELETE); the list also reloads from the events. */
  onChanged: (job: Job) => void;
}

function Target({ job, printers }: { job: Job; printers: Map<string, Printer> }) {
  if (job.printer_id) {
    const p = printers.get(job.printer_id);
    const label = job.status === 'queued' ? 'Pinned to' : 'On';
    return html`<span>${label} <a href=${href('printers', job.printer_id)}>${p?.name ?? job.printer_id}</a></span>`;
  }
  if (job.group) return html`<span>Group ${job.group}</span>`;
  return html`<span>Any printer</span>`;
}

function Material({ job }: { job: Job }) {
  const m = job.material;
  if (!m.type && !m.color) return html`<span>Any material</span>`;
  return html`<span>${m.color ? html`<${Swatch} color=${m.color} label=${`${m.type ?? ''} ${m.color}`.trim()} />` : m.type}${m.estimated_usage ? html` <small class="usage">(about ${grams(m.estimated_usage)})</small>` : null}</span>`;
}

function JobRow({ job, position, printers, canWrite, focus, onChanged }: { job: Job; position: number | null } & Omit<Props, 'jobs'>) {
  const patch = useAction(async (priority: Priority) => onChanged(await api.patch<Job>(`/v1/jobs/${encodeURIComponent(job.id)}`, { priority })));
  const cancel = useAction(async () => onChanged(await api.del<Job>(`/v1/jobs/${encodeURIComponent(job.id)}`)));
  const queued = job.status === 'queued';
  const up = priorityStep(job.priority, 1);
  const down = priorityStep(job.priority, -1);
  const selId = `prio-${job.id}`;
  const why = job.waiting_reason ? waitingWords(job.waiting_reason) : null;
  const noWrite = canWrite ? null : 'Your sign-in may only look at the queue.';
  const prioLocked = noWrite;

  return html`<li class=${`queue-job status-${job.status}${focus === job.id ? ' focused' : ''}`} id=${`job-${job.id}`} aria-labelledby=${`name-${job.id}`}>
    <div class="job-main">
      <div class="job-title">
        ${position !== null ? html`<span class="position" aria-label=${`Position ${position} in the queue`}>${position}</span>` : null}
        <strong id=${`name-${job.id}`}>${job.name}</strong>
        <${StatusBadge} status=${job.status} />
        ${job.batch_id ? html`<small class="hint">part of a batch</small>` : null}
      </div>
      <dl class="job-facts">
        <div><dt>Material</dt><dd><${Material} job=${job} /></dd></div>
        <div><dt>Where</dt><dd><${Target} job=${job} printers=${printers} /></dd></div>
        <div><dt>Time</dt><dd>${job.estimated_duration ? `about ${duration(job.estimated_duration)}` : 'no estimate'}</dd></div>
        <div><dt>Added</dt><dd>${relative(job.created_at)}</dd></div>
      </dl>
      ${why
        ? html`<div class="waiting" data-reason=${job.waiting_reason}>
            <strong>Waiting: ${why.label}.</strong> ${why.why} <span class="todo">${why.todo}</span>
            ${job.waiting_detail ? html`<p class="waiting-detail">${job.waiting_detail}</p>` : null}
          </div>`
        : null}
      ${job.status === 'printing' || job.status === 'paused'
        ? html`<div class="job-progress">
            <${ProgressBar} value=${job.progress} label=${`Progress of ${job.name}`} />
            <small>${job.status === 'paused' ? 'Paused' : job.estimated_remaining !== null ? `${duration(job.estimated_remaining)} left` : 'time left unknown'}</small>
          </div>`
        : null}
    </div>
    <div class="job-controls">
      ${queued
        ? html`<div class="prio">
            <label for=${selId}>Priority</label>
            <div class="row tight">
              <${Button} label=${`Raise priority of ${job.name}`} disabled=${!!prioLocked || !up || patch.busy} onClick=${() => up && patch.run(up)}>▲<//>
              <select id=${selId} value=${job.priority} disabled=${!!prioLocked || patch.busy} aria-describedby=${noWrite ? `${selId}-why` : undefined}
                onChange=${(e: Event) => patch.run((e.target as HTMLSelectElement).value as Priority)}>
                ${PRIORITIES.map((p) => html`<option value=${p}>${PRIORITY_WORDS[p]}</option>`)}
              </select>
              <${Button} label=${`Lower priority of ${job.name}`} disabled=${!!prioLocked || !down || patch.busy} onClick=${() => down && patch.run(down)}>▼<//>
            </div>
            ${noWrite ? html`<small id=${`${selId}-why`} class="hint">${noWrite}</small>` : null}
          </div>`
        : html`<p class="prio-text">${PRIORITY_WORDS[job.priority]} priority</p>`}
      <${ConfirmButton} id=${`cancel-${job.id}`} title=${`Cancel “${job.name}”?`} disabled=${!!noWrite}
        message=${queued ? 'The job leaves the queue and will not print. This cannot be undone.' : 'The printer stops this print and runs its cancel script (heaters off, head parked). The part on the bed stays unfinished. This cannot be undone.'}
        confirmText="Cancel the job" busy=${cancel.busy} onConfirm=${() => cancel.run()}>Cancel<//>
    </div>
    <${ErrorNote} error=${patch.error} onDismiss=${patch.clearError} />
    <${ErrorNote} error=${cancel.error} onDismiss=${cancel.clearError} />
  </li>`;
}

export function QueueList(props: Props) {
  const running = props.jobs.filter((j) => j.status === 'printing' || j.status === 'paused');
  const queued = props.jobs.filter((j) => j.status === 'queued');
  const { printers, canWrite, focus, onChanged } = props;
  const row = (j: Job, position: number | null) =>
    html`<${JobRow} key=${j.id} job=${j} position=${position} printers=${printers} canWrite=${canWrite} focus=${focus} onChanged=${onChanged} />`;
  return html`<section class="card queue-list" aria-labelledby="queue-title">
    <h2 id="queue-title">Queue <small class="hint">${running.length} printing · ${queued.length} waiting</small></h2>
    ${props.jobs.length === 0 ? html`<${Empty}>The queue is empty. Drop G-code files above to add prints.<//>` : null}
    ${running.length > 0
      ? html`<h3>Printing now</h3><ul class="job-list">${running.map((j) => row(j, null))}</ul>`
      : null}
    ${queued.length > 0
      ? html`<h3>Waiting, in the order they start</h3>
          <p class="hint">Higher priority goes first, then the oldest. Change a priority to move a job.</p>
          <ol class="job-list">${queued.map((j, i) => row(j, i + 1))}</ol>`
      : null}
  </section>`;
}
