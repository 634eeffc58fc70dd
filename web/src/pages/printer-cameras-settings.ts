// The cameras of a printer in its settings (#/printer-settings/<id>): add one by its stream and/or snapshot URL, change
// how it is shown and whether it photographs jobs, or remove it. Credentials typed in a URL are never shown again.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { loadCameras, type Camera } from '../lib/cameras.js';
import { useAction, useResource } from '../lib/hooks.js';
import { Button, ConfirmButton, ErrorNote, Field, Notice } from '../components/ui.js';
import '../styles/cameras.css';

interface CameraDraft {
  name: string;
  stream_url: string;
  snapshot_url: string;
  rotation: string;
  flip_horizontal: boolean;
  flip_vertical: boolean;
  refresh_seconds: string;
  job_pictures: boolean;
  job_picture_step: string;
  enabled: boolean;
}

const EMPTY: CameraDraft = {
  name: 'Camera', stream_url: '', snapshot_url: '', rotation: '0', flip_horizontal: false, flip_vertical: false,
  refresh_seconds: '10', job_pictures: true, job_picture_step: '', enabled: true,
};

const draftOf = (c: Camera): CameraDraft => ({
  name: c.name, stream_url: c.stream_url ?? '', snapshot_url: c.snapshot_url ?? '', rotation: String(c.rotation),
  flip_horizontal: c.flip_horizontal, flip_vertical: c.flip_vertical, refresh_seconds: String(c.refresh_seconds),
  job_pictures: c.job_pictures, job_picture_step: c.job_picture_step === null ? '' : String(c.job_picture_step), enabled: c.enabled,
});

/** Only what changed goes into a PATCH; an unchanged URL is not sent, so its sealed credentials stay. */
function bodyOf(d: CameraDraft, original: CameraDraft | null): Record<string, unknown> {
  const all: Record<string, unknown> = {
    name: d.name.trim(),
    stream_url: d.stream_url.trim() || null,
    snapshot_url: d.snapshot_url.trim() || null,
    rotation: Number(d.rotation),
    flip_horizontal: d.flip_horizontal,
    flip_vertical: d.flip_vertical,
    refresh_seconds: Number(d.refresh_seconds),
    job_pictures: d.job_pictures,
    job_picture_step: d.job_picture_step.trim() === '' ? null : Number(d.job_picture_step),
    enabled: d.enabled,
  };
  if (!original) return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== null));
  return Object.fromEntries(Object.entries(all).filter(([k]) => d[k as keyof CameraDraft] !== original[k as keyof CameraDraft]));
}

function CameraForm({ printerId, camera, onSaved, onCancel }: { printerId: string; camera: Camera | null; onSaved: () => void; onCancel?: () => void }) {
  const original = camera ? draftOf(camera) : null;
  const [draft, setDraft] = useState<CameraDraft>(original ?? EMPTY);
  const idp = `cam-${camera?.id ?? 'new'}`;
  const save = useAction(async () => {
    const body = bodyOf(draft, original);
    if (camera) {
      if (Object.keys(body).length > 0) await api.patch(`/v1/cameras/${encodeURIComponent(camera.id)}`, body);
    } else await api.post(`/v1/printers/${encodeURIComponent(printerId)}/cameras`, body);
    onSaved();
  });
  const text = (key: 'name' | 'stream_url' | 'snapshot_url' | 'refresh_seconds' | 'job_picture_step', label: string, attrs: Record<string, unknown> = {}, hint?: string) =>
    html`<${Field} id=${`${idp}-${key}`} label=${label} hint=${hint}>
      <input id=${`${idp}-${key}`} name=${key} value=${draft[key]} aria-describedby=${hint ? `${idp}-${key}-hint` : undefined} ...${attrs}
        onInput=${(e: Event) => setDraft({ ...draft, [key]: (e.target as HTMLInputElement).value })} />
    <//>`;
  const check = (key: 'flip_horizontal' | 'flip_vertical' | 'job_pictures' | 'enabled', label: string) =>
    html`<label class="check"><input type="checkbox" name=${key} checked=${draft[key]} onChange=${(e: Event) => setDraft({ ...draft, [key]: (e.target as HTMLInputElement).checked })} /> ${label}</label>`;
  const credentialHint = (has: boolean | undefined) =>
    has ? 'A user name and password are stored (sealed) for this address; type the address again with them to change them.' : 'A user name and password go in the address: http://user:password@host/… They are stored sealed and never shown.';
  return html`<form class="camera-form" aria-label=${camera ? `Change camera ${camera.name}` : 'Add a camera'} onSubmit=${(e: Event) => (e.preventDefault(), void save.run())}>
    ${text('name', 'Name', { required: true, maxLength: 100 })}
    ${text('stream_url', 'Stream URL (MJPEG)', { type: 'url', placeholder: 'http://192.168.1.50/webcam/?action=stream' }, credentialHint(camera?.has_stream_credentials))}
    ${text('snapshot_url', 'Snapshot URL (JPEG)', { type: 'url', placeholder: 'http://192.168.1.50/webcam/?action=snapshot' }, credentialHint(camera?.has_snapshot_credentials))}
    <div class="two">
      <${Field} id=${`${idp}-rotation`} label="Rotation">
        <select id=${`${idp}-rotation`} name="rotation" value=${draft.rotation} onChange=${(e: Event) => setDraft({ ...draft, rotation: (e.target as HTMLSelectElement).value })}>
          ${['0', '90', '180', '270'].map((r) => html`<option value=${r}>${r}°</option>`)}
        </select>
      <//>
      ${text('refresh_seconds', 'Card picture every (s)', { type: 'number', min: 2, max: 3600 }, 'Only while the card is on screen.')}
    </div>
    <div class="row">${check('flip_horizontal', 'Mirror left to right')} ${check('flip_vertical', 'Mirror top to bottom')}</div>
    <div class="row">${check('job_pictures', 'Photograph every job (start and end)')} ${check('enabled', 'Camera on')}</div>
    ${text('job_picture_step', 'Also a picture every (%)', { type: 'number', min: 5, max: 50, placeholder: 'none' }, 'Leave empty for start and end only.')}
    <${ErrorNote} error=${save.error} onDismiss=${save.clearError} />
    <div class="row">
      <${Button} type="submit" kind="primary" busy=${save.busy}>${camera ? 'Save camera' : 'Add camera'}<//>
      ${onCancel ? html`<${Button} onClick=${onCancel}>Cancel<//>` : null}
    </div>
  </form>`;
}

function CameraRow({ camera, onChanged }: { camera: Camera; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const remove = useAction(async () => {
    await api.del(`/v1/cameras/${encodeURIComponent(camera.id)}`);
    onChanged();
  });
  if (editing) return html`<li><${CameraForm} printerId=${camera.printer_id} camera=${camera} onSaved=${() => (setEditing(false), onChanged())} onCancel=${() => setEditing(false)} /></li>`;
  return html`<li class="camera-row">
    <div>
      <strong>${camera.name}</strong>${camera.enabled ? null : html` <span class="muted">(off)</span>`}
      <div class="muted">${[camera.stream_url && `stream ${camera.stream_url}`, camera.snapshot_url && `snapshot ${camera.snapshot_url}`].filter(Boolean).join(' · ')}</div>
      ${camera.state.error ? html`<div class="warn-text">Last problem: ${camera.state.error.message}</div>` : null}
    </div>
    <div class="row">
      <${Button} onClick=${() => setEditing(true)} label=${`Change camera ${camera.name}`}>Change<//>
      <${ConfirmButton} id=${`remove-${camera.id}`} title=${`Remove camera ${camera.name}?`} busy=${remove.busy}
        message="Its pictures of past jobs stay with those jobs." confirmText="Remove camera" onConfirm=${() => remove.run()}>Remove<//>
    </div>
    <${ErrorNote} error=${remove.error} />
  </li>`;
}

export function CameraSettings({ printerId }: { printerId: string }) {
  const cameras = useResource(() => loadCameras(printerId), [printerId]);
  const [adding, setAdding] = useState(false);
  const [saved, setSaved] = useState(false);
  const changed = () => {
    setSaved(true);
    setAdding(false);
    void cameras.reload();
  };
  const list = cameras.data ?? [];
  return html`<section id="cameras" class="camera-settings" aria-labelledby="camera-settings-title">
    <h2 id="camera-settings-title">Cameras</h2>
    <p class="hint">Any MJPEG stream or JPEG snapshot URL: ustreamer, mjpg-streamer, crowsnest or an IP camera. The farm keeps one connection per camera however many people watch.</p>
    <${ErrorNote} error=${cameras.error} />
    ${saved ? html`<${Notice} kind="success">Cameras saved.<//>` : null}
    ${list.length > 0 ? html`<ul class="camera-rows">${list.map((c) => html`<${CameraRow} key=${c.id} camera=${c} onChanged=${changed} />`)}</ul>` : null}
    ${adding
      ? html`<${CameraForm} printerId=${printerId} camera=${null} onSaved=${changed} onCancel=${() => setAdding(false)} />`
      : html`<${Button} onClick=${() => (setSaved(false), setAdding(true))}>Add a camera<//>`}
  </section>`;
}
