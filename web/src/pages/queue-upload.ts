// Uploading G-code: a drop zone and a file picker; each drop becomes a batch with its own settings form, then every file
// uploads with its own progress bar (two at a time); a failed file says why and can be retried while the others go on.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { ApiError, upload } from '../lib/api.js';
import { errorWords } from '../lib/error-words.js';
import { fileSize } from '../lib/format.js';
import { href } from '../lib/router.js';
import { Button, ProgressBar } from '../components/ui.js';
import { PRIORITY_WORDS, type JobCreated } from './queue-types.js';
import type { Printer } from './printer-types.js';
import { DEFAULTS, settingsFields, SettingsFields, settingsProblem, targetWords, type Settings } from './queue-settings.js';

const GCODE = /\.(gcode|gco|g)$/i;
const PARALLEL = 2;

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

function formFor(item: Item, s: Settings): FormData {
  const f = new FormData();
  const fields = settingsFields(s);
  f.append('copies', String(fields.copies));
  f.append('priority', fields.priority);
  if (fields.material) f.append('material', fields.material.type);
  if (fields.material?.color) f.append('material_color', fields.material.color);
  if (fields.printer_id) f.append('printer_id', fields.printer_id);
  if (fields.group) f.append('group', fields.group);
  // The file part last: the server reads the text fields before it stores the file.
  f.append('file', item.file, item.file.name);
  return f;
}

function uploadFailure(err: unknown): string {
  if (err instanceof ApiError && err.status === 413) return 'The file is larger than the server accepts (1 GiB). Slice it with fewer details or split the plate.';
  if (err instanceof ApiError && err.code === 'file_invalid') return `The server cannot print this file: ${err.message.replace(/\.$/, '')}. Export it again from the slicer as plain-text G-code (.gcode) and upload that file.`;
  return errorWords(err);
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

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    if (canWrite) addFiles(e.dataTransfer?.files ?? null);
  };

  const batchForm = (b: Batch) => {
    return html`<form class="batch-form" onSubmit=${(e: Event) => { e.preventDefault(); send(b); }} aria-label=${`Settings for ${b.items.length} file${b.items.length === 1 ? '' : 's'}`}>
      <${SettingsFields} idPrefix=${`b${b.id}`} settings=${b.settings} printers=${printers} onChange=${bump} copiesLabel="Copies of each file" />
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
      <div class="upload-name"><strong>${item.file.name}</strong> <small class="hint">${fileSize(item.file.size)}</small></div>
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
