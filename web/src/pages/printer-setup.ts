// Adding a printer (#/add-printer) and changing or removing one (#/printer-settings/<id>): one form over POST/PATCH /v1/printers.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction, useResource } from '../lib/hooks.js';
import { href, navigate, type Route } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { Button, ConfirmButton, Empty, ErrorNote, Field, Notice, PageHeader } from '../components/ui.js';
import { ConnectionFields, type ConnectionValue } from './printer-connection-form.js';
import { CameraSettings } from './printer-cameras-settings.js';
import type { PageDef } from './index.js';
import '../styles/printer-setup.css';

/** The editable fields as the form holds them (strings, so a half-typed number is never lost). */
interface PrinterDraft {
  name: string;
  connection_url: string;
  model: string;
  group: string;
  tags: string;
  material_type: string;
  material_color: string;
  nozzle_diameter: string;
  power_watts: string;
  heatup_watts: string;
  clear_bed_gcode: string;
  clear_bed_temperature: string;
  /** A new credential as typed; never filled from the server (it never returns the key). */
  api_key: string;
}

const EMPTY: PrinterDraft = {
  name: '', connection_url: '', model: '', group: '', tags: '', material_type: '', material_color: '',
  nozzle_diameter: '', power_watts: '', heatup_watts: '', clear_bed_gcode: '', clear_bed_temperature: '', api_key: '',
};

const NUMBER_FIELDS = ['nozzle_diameter', 'power_watts', 'heatup_watts', 'clear_bed_temperature'] as const;
const TEXT_FIELDS = ['model', 'group', 'material_type', 'material_color', 'clear_bed_gcode'] as const;

function draftOf(p: Record<string, any>): PrinterDraft {
  const s = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  return {
    name: s(p.name), connection_url: s(p.connection_url), model: s(p.model), group: s(p.group), tags: (p.tags ?? []).join(', '),
    material_type: s(p.material_type), material_color: s(p.material_color), nozzle_diameter: s(p.nozzle_diameter),
    power_watts: s(p.power_watts), heatup_watts: s(p.heatup_watts), clear_bed_gcode: s(p.clear_bed_gcode),
    clear_bed_temperature: s(p.clear_bed_temperature), api_key: '',
  };
}

/**
 * The request body: empty optional fields are left out on create and sent as null on edit (clearing them); numbers are
 * sent as typed so the server names a bad one. Only changed fields go into a PATCH. The key is sent only when one was
 * typed (an empty field keeps the stored one), or as null when `removeKey`.
 */
export function bodyOf(draft: PrinterDraft, original: PrinterDraft | null, removeKey = false): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const put = (key: keyof PrinterDraft, value: unknown) => {
    if (original && draft[key] === original[key]) return;
    if (!original && (value === null || (Array.isArray(value) && value.length === 0))) return;
    body[key] = value;
  };
  put('name', draft.name.trim());
  put('connection_url', draft.connection_url.trim());
  for (const k of TEXT_FIELDS) put(k, draft[k].trim() === '' ? null : k === 'clear_bed_gcode' ? draft[k] : draft[k].trim());
  for (const k of NUMBER_FIELDS) {
    const t = draft[k].trim();
    put(k, t === '' ? null : Number.isFinite(Number(t)) ? Number(t) : t);
  }
  put('tags', draft.tags.split(',').map((t) => t.trim()).filter(Boolean));
  if (draft.api_key !== '') body.api_key = draft.api_key;
  else if (removeKey && original) body.api_key = null;
  return body;
}

/** The field a refusal names ("connection_url: invalid ..."), so its words go under that field. */
const fieldOf = (words: string | null): string | null => (words ? /^([a-z_]+): /.exec(words)?.[1] ?? null : null);

function PrinterForm({ original, printerId, hadKey = false }: { original: PrinterDraft | null; printerId: string | null; hadKey?: boolean }) {
  const [draft, setDraft] = useState<PrinterDraft>(original ?? EMPTY);
  const [removeKey, setRemoveKey] = useState(false);
  const [hasKey, setHasKey] = useState(hadKey);
  const [saved, setSaved] = useState(false);
  const set = (key: keyof PrinterDraft) => (e: Event) => {
    setSaved(false);
    setDraft({ ...draft, [key]: (e.target as HTMLInputElement).value });
  };
  const save = useAction(async () => {
    const body = bodyOf(draft, original, removeKey);
    if (printerId) {
      if (Object.keys(body).length > 0) {
        const updated = await api.patch<{ has_api_key: boolean }>(`/v1/printers/${printerId}`, body);
        // The key went into the server's sealed store: the field empties and the form says one is stored.
        setHasKey(updated.has_api_key);
        setRemoveKey(false);
        setDraft((d) => ({ ...d, api_key: '' }));
      }
      setSaved(true);
    } else {
      const created = await api.post<{ id: string }>('/v1/printers', body);
      navigate(href('printers', created.id));
    }
  });
  const fieldError = fieldOf(save.error);
  const errorOf = (key: string) => (fieldError === key ? save.error : null);
  const connection: ConnectionValue = { connection_url: draft.connection_url, api_key: draft.api_key, remove_key: removeKey };
  const input = (key: keyof PrinterDraft, label: string, opts: { hint?: string; type?: string; required?: boolean; placeholder?: string; step?: string } = {}) =>
    html`<${Field} id=${`printer-${key}`} label=${label} hint=${opts.hint}>
      <input id=${`printer-${key}`} name=${key} type=${opts.type ?? 'text'} step=${opts.step} required=${opts.required} placeholder=${opts.placeholder}
        aria-describedby=${opts.hint ? `printer-${key}-hint` : undefined} aria-invalid=${errorOf(key) ? 'true' : undefined} value=${draft[key]} onInput=${set(key)} />
    <//><${ErrorNote} error=${errorOf(key)} />`;
  return html`<form class="printer-form" onSubmit=${(e: Event) => { e.preventDefault(); void save.run(); }}>
    <fieldset>
      <legend>Printer</legend>
      ${input('name', 'Name', { required: true, placeholder: 'Prusa MK4 left' })}
      ${input('model', 'Model', { placeholder: 'Original Prusa MK4' })}
      <div class="two">
        ${input('group', 'Group', { hint: 'Jobs can target a group, e.g. a shelf or a room.' })}
        ${input('tags', 'Tags', { hint: 'Separated by commas.' })}
      </div>
    </fieldset>
    <fieldset>
      <legend>Connection</legend>
      <${ConnectionFields} value=${connection} hasKey=${hasKey} urlError=${errorOf('connection_url')} keyError=${errorOf('api_key')}
        onChange=${(next: ConnectionValue) => {
          setSaved(false);
          setRemoveKey(next.remove_key);
          setDraft((d) => ({ ...d, connection_url: next.connection_url, api_key: next.api_key }));
        }} />
    </fieldset>
    <fieldset>
      <legend>What is loaded</legend>
      <p class="hint">Used by the scheduler only while no spool is loaded on the printer (Materials page).</p>
      <div class="two">
        ${input('material_type', 'Material type', { placeholder: 'PLA' })}
        ${input('material_color', 'Material colour', { placeholder: 'black' })}
      </div>
      ${input('nozzle_diameter', 'Nozzle diameter (mm)', { type: 'number', step: 'any', placeholder: '0.4' })}
    </fieldset>
    <fieldset>
      <legend>Power and bed clearing</legend>
      <div class="two">
        ${input('power_watts', 'Average power while printing (W)', { type: 'number', step: 'any', hint: 'For the energy cost of each job.' })}
        ${input('heatup_watts', 'Power while heating up (W)', { type: 'number', step: 'any', hint: 'For the farm’s power budget.' })}
      </div>
      <${Field} id="printer-clear_bed_gcode" label="Clear-bed G-code" hint="Runs after a print once the bed has cooled, for printers that push parts off by themselves. Leave empty to clear the bed by hand.">
        <textarea id="printer-clear_bed_gcode" name="clear_bed_gcode" rows="4" aria-describedby="printer-clear_bed_gcode-hint"
          value=${draft.clear_bed_gcode} onInput=${set('clear_bed_gcode')}></textarea>
      <//><${ErrorNote} error=${errorOf('clear_bed_gcode')} />
      ${input('clear_bed_temperature', 'Bed temperature before clearing (°C)', { type: 'number', step: 'any' })}
    </fieldset>
    <${ErrorNote} error=${fieldError && fieldError in draft ? null : save.error} />
    ${saved ? html`<${Notice} kind="success">Saved.<//>` : null}
    <div class="row">
      <${Button} type="submit" kind="primary" busy=${save.busy}>${printerId ? 'Save changes' : 'Add printer'}<//>
      <a class="btn secondary" href=${printerId ? href('printers', printerId) : '#/'}>${printerId ? 'Back to the printer' : 'Cancel'}</a>
    </div>
  </form>`;
}

export function AddPrinterPage() {
  const { can } = useSession();
  return html`<section class="printer-setup">
    <${PageHeader} title="Add a printer" />
    ${can('printers:write')
      ? html`<p class="hint">The server connects as soon as the printer is added and keeps reconnecting if it is unplugged or cannot be reached.</p>
          <${PrinterForm} original=${null} printerId=${null} />`
      : html`<${Empty}>Adding printers needs the printers:write scope. Ask an admin.<//>`}
  </section>`;
}

export function PrinterSettingsPage({ route }: { route: Route }) {
  const id = route.parts[1] ?? '';
  const { can } = useSession();
  const printer = useResource(() => api.get<Record<string, any>>(`/v1/printers/${encodeURIComponent(id)}`), [id]);
  const remove = useAction(async () => {
    await api.del(`/v1/printers/${encodeURIComponent(id)}`);
    navigate('#/');
  });
  if (!printer.data) {
    return html`<section class="printer-setup"><${PageHeader} title="Printer settings" /><${ErrorNote} error=${printer.error} />
      ${printer.error ? null : html`<p class="muted" aria-busy="true">Loading…</p>`}</section>`;
  }
  const p = printer.data;
  return html`<section class="printer-setup">
    <${PageHeader} title=${`Settings of ${p.name}`} />
    ${can('printers:write')
      ? html`<${PrinterForm} key=${p.id} original=${draftOf(p)} printerId=${p.id} hadKey=${p.has_api_key === true} />
          <${CameraSettings} printerId=${p.id} />
          <section class="danger-zone" aria-labelledby="remove-title">
            <h2 id="remove-title">Remove this printer</h2>
            <p>Its finished jobs stay in the history. A printer that is printing cannot be removed; cancel the job first.</p>
            <${ErrorNote} error=${remove.error} />
            <${ConfirmButton} id="remove-printer" title=${`Remove ${p.name}?`} busy=${remove.busy}
              message="The server disconnects from it and forgets its settings. Queued jobs pinned to it stay queued until you change them."
              confirmText="Remove printer" onConfirm=${() => remove.run()}>Remove printer<//>
          </section>`
      : html`<${Empty}>Changing printers needs the printers:write scope. Ask an admin.<//>`}
  </section>`;
}

export const addPrinterPage: PageDef = { path: 'add-printer', title: 'Add a printer', nav: false, scope: 'printers:read', component: AddPrinterPage };
export const printerSettingsPage: PageDef = { path: 'printer-settings', title: 'Printer settings', nav: false, scope: 'printers:read', component: PrinterSettingsPage };
