// Uploading G-code: a drop zone and a file picker; each drop becomes a batch with its own settings form, then every file
// uploads with its own progress bar (two at a time); a failed file says why and can be retried while the others go on.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { ApiError, upload } from '../lib/api.js';
import { errorWords } from '../lib/error-words.js';
import { href } from '../lib/router.js';
import { Button, Field, ProgressBar } from '../components/ui.js';
import { PRIORITIES, PRIORITY_WORDS, type JobCreated, type Priority } from './queue-types.js';
import type { Printer } from './printer-types.js';

const GCODE = /\.(gcode|gco|g)$/i;
const PARALLEL = 2;

interface Settings {
  copies: string;
  priority: Priority;
  material: string;
  color: string;
  /** '' any printer, 'printer:<id>' or 'group:<name>'. */
  target: string;
}

type ItemState = 'waiting' | 'uploading' | 'done' | 'failed';

interface Item {
  key: number;
  file: File;
  state: ItemState;
  progress: number;
  error: string | null;
  created: JobCreated['data'] | null;
  abort: AbortController | null;
}

interface Batch {
  id: number;
  settings: Settings;
  items: Item[];
  /** Files that were dropped but are not G-code. */
  skipped: string[];
  sent: boolean;
  formError: string | null;
}

const DEFAULTS: Settings = { copies: '1', priority: 'normal', material: '', color: '', target: '' };

const size = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} B`;

function settingsProblem(s: Settings): string | null {
  if (!/^\d+$/.test(s.copies.trim()) || Number(s.copies) < 1 || Number(s.copies) > 100) return 'Copies: enter a whole number from 1 to 100.';
  if (s.color.trim() && !s.material.trim()) return 'Colour: name the material type too (for example PLA), or leave the colour empty.';
  return null;
}

function formFor(item: Item, s: Settings): FormData {
  const f = new FormData();
  f.append('copies', String(Number(s.copies)));
  f.append('priority', s.priority);
  if (s.material.trim()) f.append('material', s.material.trim());
  if (s.material.trim() && s.color.trim()) f.append('material_color', s.color.trim());
  if (s.target.startsWith('printer:')) f.append('printer_id', s.target.slice(8));
  if (s.target.startsWith('group:')) f.append('group', s.target.slice(6));
  // The file part last: the server reads the text fields before it stores the file.
  f.append('file', item.file, item.file.name);
  return f;
}

function uploadFailure(err: unknown): string {
  if (err instanceof ApiError && err.status === 413) return 'The file is larger than the server accepts (1 GiB). Slice it with fewer details or split the plate.';
  if (err instanceof ApiError && err.code === 'file_invalid') return `The server cannot print this file: ${err.message.replace(/\.$/, '')}. Export it again from the slicer as plain-text G-code (.gcode) and upload that file.`;
  return errorWords(err);
}

function targetWords(s: Settings, printers: Printer[]): string {
  if (s.target.startsWith('printer:')) {
    const id = s.target.slice(8);
    return `on ${printers.find((p) => p.id === id)?.name ?? id}`;
  }
  if (s.target.startsWith('group:')) return `in group ${s.target.slice(6)}`;
  return 'on any fitting printer';
}

export function UploadPanel({ printers, canWrite, onUploaded }: { printers: Printer[]; canWrite: boolean; onUploaded: () => void }) {
  const [, setVersion] = useState(0);
  const batches = useRef<Batch[]>([]);
  const nextKey = useRef(1);
  const [dragging, setDragging] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  const lastSettings = useRef<Settings>(DEFAULTS);
  const uploadedRef = useRef(onUploaded);
  uploadedRef.current = onUploaded;
  const bump = () => setVersion((v) => v + 1);

  useEffect(() => () => batches.current.forEach((b) => b.items.forEach((i) => i.abort?.abort())), []);

  const addFiles = (list: FileList | File[] | null) => {
    const files = [...(list ?? [])];
    if (files.length === 0) return;
    const gcode = files.filter((f) => GCODE.test(f.name));
    const skipped = files.filter((f) => !GCODE.test(f.name)).map((f) => f.name);
    batches.current = [
      ...batches.current,
      {
        id: nextKey.current++,
        settings: { ...lastSettings.current },
        items: gcode.map((file) => ({ key: nextKey.current++, file, state: 'waiting', progress: 0, error: null, created: null, abort: null })),
        skipped,
        sent: false,
        formError: gcode.length === 0 ? 'None of these files is G-code (.gcode). Slice the models first and drop the .gcode files.' : null,
      },
    ];
    bump();
  };

  const pump = () => {
    const active = batches.current.flatMap((b) => b.items).filter((i) => i.state === 'uploading').length;
    let free = PARALLEL - active;
    for (const b of batches.current) {
      if (!b.sent) continue;
      for (const item of b.items) {
        if (free <= 0) return;
        if (item.state !== 'waiting') continue;
        free--;
        void start(b, item);
      }
    }
  };

  const start = async (b: Batch, item: Item) => {
    item.state = 'uploading';
    item.progress = 0;
    item.error = null;
    item.abort = new AbortController();
    bump();
    try {
      if (item.file.size === 0) throw new Error('empty');
      const res = await upload<JobCreated>('/v1/jobs', formFor(item, b.settings), (f) => {
        item.progress = f;
        bump();
      }, item.abort.signal);
      item.state = 'done';
      item.created = res.data;
      uploadedRef.current();
    } catch (err) {
      item.state = 'failed';
      item.error = err instanceof Error && err.message === 'empty' ? 'The file is empty. Export it again from the slicer.' : uploadFailure(err);
    } finally {
      item.abort = null;
      bump();
      pump();
    }
  };

  const send = (b: Batch) => {
    const problem = settingsProblem(b.settings);
    b.formError = problem;
    if (!problem && b.items.length > 0) {
      b.sent = true;
      lastSettings.current = { ...b.settings };
      pump();
    }
    bump();
  };

  const retry = (item: Item) => {
    item.state = 'waiting';
    item.error = null;
    bump();
    pump();
  };

  const remove = (b: Batch) => {
    b.items.forEach((i) => i.abort?.abort());
    batches.current = batches.current.filter((x) => x !== b);
    bump();
  };

  const groups = [...new Set(printers.map((p) => p.group).filter((g): g is string => !!g))].sort();

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (canWrite) addFiles(e.dataTransfer?.files ?? null);
  };

  const batchForm = (b: Batch) => {
    const id = (name: string) => `b${b.id}-${name}`;
    const set = (k: keyof Settings) => (e: Event) => {
      (b.settings as unknown as Record<string, string>)[k] = (e.target as HTMLInputElement).value;
      bump();
    };
    const s = b.settings;
    return html`<form class="batch-form" onSubmit=${(e: Event) => { e.preventDefault(); send(b); }} aria-label=${`Settings for ${b.items.length} file${b.items.length === 1 ? '' : 's'}`}>
      <div class="batch-fields">
        <${Field} id=${id('copies')} label="Copies of each file" hint="1 to 100; copies spread over every fitting printer.">
          <input id=${id('copies')} type="number" inputmode="numeric" min="1" max="100" step="1" value=${s.copies} onInput=${set('copies')} aria-describedby=${`${id('copies')}-hint`} required />
        <//>
        <${Field} id=${id('priority')} label="Priority">
          <select id=${id('priority')} value=${s.priority} onChange=${set('priority')}>
            ${PRIORITIES.map((p) => html`<option value=${p}>${PRIORITY_WORDS[p]}</option>`)}
          </select>
        <//>
        <${Field} id=${id('material')} label="Material type (optional)" hint="Only printers with this material loaded take it, e.g. PLA.">
          <input id=${id('material')} type="text" maxlength="50" value=${s.material} onInput=${set('material')} aria-describedby=${`${id('material')}-hint`} placeholder="from the file" />
        <//>
        <${Field} id=${id('color')} label="Colour (optional)">
          <input id=${id('color')} type="text" maxlength="50" value=${s.color} onInput=${set('color')} placeholder="any colour" />
        <//>
        <${Field} id=${id('target')} label="Printer or group">
          <select id=${id('target')} value=${s.target} onChange=${set('target')}>
            <option value="">Any fitting printer</option>
            ${printers.length > 0
              ? html`<optgroup label="Printer">${printers.map((p) => html`<option value=${`printer:${p.id}`}>${p.name}</option>`)}</optgroup>`
              : null}
            ${groups.length > 0 ? html`<optgroup label="Group">${groups.map((g) => html`<option value=${`group:${g}`}>Group ${g}</option>`)}</optgroup>` : null}
          </select>
        <//>
      </div>
      ${b.formError ? html`<div class="note error" role="alert">${b.formError}</div>` : null}
      <div class="row">
        <${Button} type="submit" kind="primary" disabled=${b.items.length === 0}>Upload ${b.items.length} file${b.items.length === 1 ? '' : 's'}<//>
        <${Button} onClick=${() => remove(b)}>Discard<//>
      </div>
    </form>`;
  };

  const itemRow = (b: Batch, item: Item) => {
    const copies = item.created?.job_ids?.length ?? 1;
    return html`<li key=${item.key} class=${`upload-item state-${item.state}${b.sent ? '' : ' draft'}`}>
      <div class="upload-name"><strong>${item.file.name}</strong> <small class="hint">${size(item.file.size)}</small></div>
      ${b.sent
        ? html`${item.state === 'failed' ? null : html`<${ProgressBar} value=${item.progress * 100} label=${`Upload of ${item.file.name}`} />`}
          <div class="upload-state" aria-live="polite">
            ${item.state === 'waiting' ? 'Waiting to upload…' : null}
            ${item.state === 'uploading' ? (item.progress >= 1 ? 'Checking the file…' : 'Uploading…') : null}
            ${item.state === 'done' && item.created
              ? html`<span class="ok-text">✓ Queued${copies > 1 ? ` as ${copies} jobs` : ''}: <a href=${`${href('queue')}?job=${encodeURIComponent(item.created.id)}`}>${item.created.name}</a></span>`
              : null}
            ${item.state === 'failed'
              ? html`<span class="note error" role="alert">✕ Not uploaded. ${item.error}</span>
                  <${Button} onClick=${() => retry(item)} label=${`Retry ${item.file.name}`}>Retry<//>`
              : null}
          </div>`
        : html`<${Button} kind="link" onClick=${() => { b.items = b.items.filter((i) => i !== item); bump(); }} label=${`Remove ${item.file.name}`}>Remove<//>`}
    </li>`;
  };

  const batchDone = (b: Batch) => b.sent && b.items.every((i) => i.state === 'done' || i.state === 'failed');

  return html`<section class="card upload-panel" aria-labelledby="upload-title">
    <h2 id="upload-title">Add prints</h2>
    <div class=${`drop-zone${dragging ? ' dragging' : ''}${canWrite ? '' : ' disabled'}`} data-testid="drop-zone"
      onDragOver=${(e: DragEvent) => { e.preventDefault(); if (canWrite) setDragging(true); }}
      onDragLeave=${() => setDragging(false)} onDrop=${onDrop}>
      <p><strong>Drop .gcode files here</strong> <span class="hint">one or many</span></p>
      <p>or</p>
      <input ref=${picker} id="gcode-files" type="file" multiple accept=".gcode,.gco,.g" hidden
        onChange=${(e: Event) => { const input = e.target as HTMLInputElement; addFiles(input.files); input.value = ''; }} />
      <${Button} kind="primary" disabled=${!canWrite} onClick=${() => picker.current?.click()}>Choose G-code files…<//>
      ${canWrite ? null : html`<p class="hint">Your sign-in may only look at the queue (it lacks jobs:write).</p>`}
    </div>
    ${batches.current.map(
      (b) => html`<div key=${b.id} class="batch">
        <h3>${b.items.length} file${b.items.length === 1 ? '' : 's'}${b.sent ? '' : ' ready to upload'}${b.sent ? html` <small class="hint">· ${b.settings.copies} ${b.settings.copies === '1' ? 'copy' : 'copies'} each · ${PRIORITY_WORDS[b.settings.priority]} priority${b.settings.material ? ` · ${b.settings.material}${b.settings.color ? ` ${b.settings.color}` : ''}` : ''} · ${targetWords(b.settings, printers)}</small>` : null}</h3>
        ${b.skipped.length > 0 ? html`<p class="note warning">Skipped (not G-code): ${b.skipped.join(', ')}. Slice them first and drop the .gcode files.</p>` : null}
        <ul class="upload-list">${b.items.map((i) => itemRow(b, i))}</ul>
        ${b.sent ? null : batchForm(b)}
        ${batchDone(b) ? html`<${Button} kind="link" onClick=${() => remove(b)}>Clear this list<//>` : null}
      </div>`,
    )}
  </section>`;
}
