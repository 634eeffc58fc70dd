// Stored files (GET /v1/files), last used first: what a slicer uploaded without printing and what was printed before.
// Each has a Queue form (the upload's settings fields) that queues it again by file_id; a pruned file says so instead.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api, type Page } from '../lib/api.js';
import { errorWords } from '../lib/error-words.js';
import { dateTime, duration, fileSize, grams } from '../lib/format.js';
import { href } from '../lib/router.js';
import { useReloadOn, useResource } from '../lib/hooks.js';
import { Button, Empty, ErrorNote } from '../components/ui.js';
import type { FileListItem } from '../../../src/files/files.schemas.js';
import type { JobCreated } from './queue-types.js';
import type { Printer } from './printer-types.js';
import { DEFAULTS, settingsFields, SettingsFields, settingsProblem, targetWords, type Settings } from './queue-settings.js';

const PER_PAGE = 10;

/** A stored file as the list shows it: the server's own item type. */
export type StoredFile = FileListItem;

/** The slicer's preview when the file has one (asked for only then), else a plain placeholder. */
function Thumb({ file }: { file: StoredFile }) {
  const [failed, setFailed] = useState(false);
  if (!file.thumbnail_url || failed) return html`<div class="thumb thumb-empty" aria-hidden="true">▧</div>`;
  return html`<img class="thumb" src=${file.thumbnail_url} alt=${`Preview of ${file.original_name}`} loading="lazy" onError=${() => setFailed(true)} />`;
}

function material(f: StoredFile): string {
  const parts = [f.filament_type, f.filament_used_g === null ? null : grams(f.filament_used_g)].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : 'material not in the file';
}

/** The Queue form of one file: the settings fields, posted as JSON with file_id. */
function QueueForm({ file, printers, start, onDone, onCancel }: {
  file: StoredFile; printers: Printer[]; start: Settings; onDone: (created: JobCreated['data'], s: Settings) => void; onCancel: () => void;
}) {
  const [settings] = useState<Settings>(() => ({ ...start }));
  const [, setVersion] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    const problem = settingsProblem(settings);
    setError(problem);
    if (problem) return;
    setBusy(true);
    try {
      const res = await api.post<JobCreated>('/v1/jobs', { file_id: file.id, ...settingsFields(settings) });
      onDone(res.data, { ...settings });
    } catch (err) {
      setError(errorWords(err));
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="batch-form" aria-label=${`Queue ${file.original_name}`} onSubmit=${(e: Event) => { e.preventDefault(); void submit(); }}>
    <${SettingsFields} idPrefix=${`f-${file.id}`} settings=${settings} printers=${printers} onChange=${() => setVersion((v) => v + 1)}
      materialHint=${file.filament_type ?? 'from the file'} />
    <${ErrorNote} error=${error} />
    <div class="row">
      <${Button} type="submit" kind="primary" busy=${busy}>Queue ${Number(settings.copies) > 1 ? `${settings.copies} copies` : 'it'} ${targetWords(settings, printers)}<//>
      <${Button} onClick=${onCancel}>Cancel<//>
    </div>
  </form>`;
}

export function FilesPanel({ printers, canWrite, onQueued }: { printers: Printer[]; canWrite: boolean; onQueued: () => void }) {
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  const [last, setLast] = useState<Settings>(DEFAULTS);
  const [queued, setQueued] = useState<{ fileId: string; job: JobCreated['data'] } | null>(null);
  const files = useResource(() => api.get<Page<StoredFile>>('/v1/files', { q: q.trim(), page, per_page: PER_PAGE }), [q, page]);
  useReloadOn(['job.created', 'file.pruned'], files, 1000);
  const list = files.data?.data ?? [];
  const pages = files.data?.pagination.total_pages ?? 0;

  const row = (f: StoredFile) => {
    const removed = f.deleted_at !== null;
    return html`<li key=${f.id} class=${`stored-file${removed ? ' removed' : ''}`}>
      <div class="stored-file-row">
        <${Thumb} file=${f} />
        <div class="stored-file-text">
          <strong>${f.original_name}</strong>
          <small class="hint">${fileSize(f.size)} · uploaded ${dateTime(f.created_at)} · ${duration(f.estimated_duration)} · ${material(f)}${f.jobs_count > 0 ? ` · queued ${f.jobs_count}×` : ''}</small>
          ${queued?.fileId === f.id
            ? html`<span class="ok-text" role="status">✓ Queued: <a href=${`${href('queue')}?job=${encodeURIComponent(queued.job.id)}`}>${queued.job.name}</a></span>`
            : null}
        </div>
        ${removed
          ? html`<span class="hint removed-note">Removed by retention ${dateTime(f.deleted_at)}: upload it again to print it</span>`
          : canWrite && open !== f.id
            ? html`<${Button} onClick=${() => setOpen(f.id)} label=${`Queue ${f.original_name}`}>Queue<//>`
            : null}
      </div>
      ${open === f.id && !removed
        ? html`<${QueueForm} file=${f} printers=${printers} start=${last} onCancel=${() => setOpen(null)}
            onDone=${(job: JobCreated['data'], s: Settings) => { setOpen(null); setLast(s); setQueued({ fileId: f.id, job }); onQueued(); }} />`
        : null}
    </li>`;
  };

  return html`<section class="card stored-files" aria-labelledby="files-title">
    <h2 id="files-title">Files <span class="hint">stored G-code, last used first; queue one again</span></h2>
    <div class="field">
      <label for="files-search">Search by name</label>
      <input id="files-search" type="search" maxlength="100" value=${q} onInput=${(e: Event) => { setQ((e.target as HTMLInputElement).value); setPage(1); }} />
    </div>
    <${ErrorNote} error=${files.error} />
    ${files.data && list.length === 0 ? html`<${Empty}>${q.trim() ? 'No stored file has that in its name.' : 'No file is stored yet: upload G-code above, or send it from a slicer.'}<//>` : null}
    ${!files.data && !files.error ? html`<p aria-busy="true">Loading…</p>` : null}
    ${list.length > 0 ? html`<ul class="stored-file-list">${list.map(row)}</ul>` : null}
    ${pages > 1
      ? html`<div class="row">
          <${Button} disabled=${page <= 1} onClick=${() => setPage(page - 1)}>Newer<//>
          <span class="hint">Page ${page} of ${pages}</span>
          <${Button} disabled=${page >= pages} onClick=${() => setPage(page + 1)}>Older<//>
        </div>`
      : null}
  </section>`;
}
