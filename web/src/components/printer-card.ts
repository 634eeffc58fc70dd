// One printer as a card (farm grid and wall mode): status, temperatures, camera picture, current job with thumbnail and
// progress, spools (a Bambu printer's AMS trays), a Bambu printer's layer and HMS errors, next job.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { duration, tempWithTarget } from '../lib/format.js';
import { useAction } from '../lib/hooks.js';
import { href } from '../lib/router.js';
import type { Printer, ShownJob } from '../pages/farm-data.js';
import type { ForecastEntry } from '../pages/queue-types.js';
import { Button, ErrorNote, ProgressBar, StatusBadge, Swatch } from './ui.js';
import { ExternalJob, KindBadge, problemWords } from './printer-kind.js';
import { StartRefused } from './start-refusal.js';
import { AmsTrays, bambuLine, HmsList } from './bambu-state.js';
import { now } from '../lib/clock.js';
import type { Camera } from '../lib/cameras.js';
import { CameraPicture } from './camera-picture.js';

const clock = (ms: number): string => new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

/**
 * The job's thumbnail from its stored file, requested only when the record says there is one (a farm of files without
 * thumbnails must not fill the console with 404s); otherwise, or on a failed load, a plain placeholder.
 */
function Thumbnail({ job }: { job: ShownJob }) {
  const [failed, setFailed] = useState(false);
  if (!job.thumbnail_url || failed) return html`<div class="thumb thumb-empty" aria-hidden="true">▧</div>`;
  return html`<img class="thumb" src=${job.thumbnail_url} alt=${`Preview of ${job.name}`}
    width="64" height="64" loading="lazy" decoding="async" onError=${() => setFailed(true)} />`;
}

/** "25 min left · done about 14:35": counted down from when the estimate arrived, so it moves between job updates. */
function Eta({ job }: { job: ShownJob }) {
  if (job.estimated_remaining === null || job.estimated_remaining === undefined) return html`<span class="eta">Time left unknown</span>`;
  const left = Math.max(0, job.estimated_remaining - (now() - job.received_at) / 1000);
  return html`<span class="eta">${duration(left)} left · done about ${clock(now() + left * 1000)}</span>`;
}

function Spools({ printer }: { printer: Printer }) {
  if (printer.materials.length > 0) {
    return html`<ul class="spools" aria-label="Loaded spools">
      ${printer.materials.map(
        (m) => html`<li key=${m.id}><${Swatch} color=${m.color} label=${`${printer.materials.length > 1 ? `T${m.tool} ` : ''}${m.type}${m.color ? ` ${m.color}` : ''}`} /></li>`,
      )}
    </ul>`;
  }
  if (printer.material_type || printer.material_color) {
    const label = [printer.material_type, printer.material_color].filter(Boolean).join(' ');
    return html`<ul class="spools" aria-label="Declared material"><li><${Swatch} color=${printer.material_color} label=${label} /></li></ul>`;
  }
  return html`<p class="spools muted">No spool loaded</p>`;
}

function NextJob({ next, wall }: { next: ForecastEntry | undefined; wall: boolean }) {
  if (!next) return html`<p class="next muted">Next: nothing queued for it</p>`;
  const at = new Date(next.start_at).getTime();
  const when = at <= now() + 30_000 ? 'now' : `at ${clock(at)}`;
  return html`<p class="next"><span class="muted">Next:</span> ${wall ? next.job_name : html`<strong>${next.job_name}</strong>`} ${when}</p>`;
}

function BedClear({ printer, onChanged }: { printer: Printer; onChanged: (p: Printer) => void }) {
  const action = useAction(async () => onChanged(await api.post<Printer>(`/v1/printers/${encodeURIComponent(printer.id)}/actions`, { action: 'ready' })));
  return html`<div class="bed-clear">
    <p class="warn-line"><span aria-hidden="true">⚠ </span>The last print is still on the bed.</p>
    <${Button} kind="primary" busy=${action.busy} onClick=${() => action.run()} label=${`Bed cleared on ${printer.name}`}>Bed cleared<//>
    <${ErrorNote} error=${action.error} onDismiss=${action.clearError} />
  </div>`;
}

export interface PrinterCardProps {
  printer: Printer;
  job: ShownJob | undefined;
  next: ForecastEntry | undefined;
  /** Wall mode: larger, no links or buttons. */
  wall?: boolean;
  /** The box that drives it, on a farm of several (absent: one box, nothing to say). */
  nodeName?: string;
  /** May the viewer send printer actions (printers:write)? */
  canAct?: boolean;
  onChanged?: (p: Printer) => void;
  /** The printer's cameras: the first one's current picture is shown on the card. */
  cameras?: Camera[];
}

export function PrinterCard({ printer: p, job, next, wall = false, nodeName, canAct = false, onChanged, cameras = [] }: PrinterCardProps) {
  const status = p.connecting ? 'connecting' : p.status;
  const t = p.temperatures;
  const titleId = `printer-${p.id}-name`;
  const progress = p.progress ?? job?.progress ?? null;
  const active = p.current_job !== null && (p.status === 'printing' || p.status === 'paused');
  const problem = problemWords(p);
  const b = p.bambu ?? null;
  return html`<article class=${`card printer-card status-${status}${wall ? ' wall-card' : ''}`} aria-labelledby=${titleId} data-printer-id=${p.id}>
    <div class="pc-body">
    <header class="pc-head">
      <h2 id=${titleId} class="pc-name">${wall ? p.name : html`<a href=${href('printers', p.id)}>${p.name}</a>`}</h2>
      <${StatusBadge} status=${status} />
    </header>
    ${!wall
      ? html`<p class="pc-meta"><${KindBadge} kind=${p.kind} />${p.group || p.tags.length > 0 ? ' ' : ''}${[p.group ? `Group ${p.group}` : null, ...p.tags.map((tag) => `#${tag}`)].filter(Boolean).join(' · ')}</p>`
      : null}
    ${nodeName !== undefined ? html`<p class="pc-node">Driven by <a href="#/nodes">${nodeName}</a></p>` : null}
    <dl class="temps">
      <div><dt>Hotend</dt><dd data-temp="hotend">${tempWithTarget(t.hotend, t.hotend_target)}</dd></div>
      <div><dt>Bed</dt><dd data-temp="bed">${tempWithTarget(t.bed, t.bed_target)}</dd></div>
    </dl>
    ${cameras[0] ? html`<${CameraPicture} camera=${cameras[0]} printerName=${p.name} />` : null}
    ${problem ? html`<p class="pc-error" title=${p.error?.message}><span aria-hidden="true">⚠ </span>${problem}</p>` : null}
    ${active
      ? html`<div class="pc-job">
          ${job ? html`<${Thumbnail} job=${job} />` : html`<div class="thumb thumb-empty" aria-hidden="true">▧</div>`}
          <div class="pc-job-main">
            <p class="pc-job-name" title=${job?.name}>${job?.name ?? 'Current job'}</p>
            <${ProgressBar} value=${progress} label=${`Progress of ${job?.name ?? 'the current job'} on ${p.name}`} />
            ${job ? html`<${Eta} job=${job} />` : null}
          </div>
        </div>`
      : p.external_job
        ? html`<div class="pc-job">
            <div class="thumb thumb-empty" aria-hidden="true">▧</div>
            <div class="pc-job-main"><${ExternalJob} job=${p.external_job} printerName=${p.name} /></div>
          </div>`
      : p.status === 'idle' && p.ready && !p.start_refusal
        ? html`<p class="pc-job-none muted">Ready for the next job</p>`
        : null}
    <${StartRefused} printer=${p} canAct=${!wall && canAct && !!onChanged} onChanged=${onChanged} />
    ${p.status === 'idle' && !p.ready
      ? wall || !canAct || !onChanged
        ? html`<p class="warn-line"><span aria-hidden="true">⚠ </span>Bed not cleared</p>`
        : html`<${BedClear} printer=${p} onChanged=${onChanged} />`
      : null}
    ${b && (active || p.external_job) && bambuLine(b) ? html`<p class="pc-bambu" data-bambu="line">${bambuLine(b)}</p>` : null}
    ${b ? html`<${HmsList} hms=${b.hms} links=${!wall} limit=${2} />` : null}
    ${b && b.ams.length > 0 ? html`<${AmsTrays} trays=${b.ams} spools=${p.materials} compact printerName=${p.name} />` : html`<${Spools} printer=${p} />`}
    <${NextJob} next=${next} wall=${wall} />
    </div>
  </article>`;
}
