// The add/edit spool form: POST /v1/materials or PATCH of the changed fields only, input kept on failure, the bad field named.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction } from '../lib/hooks.js';
import { useSession } from '../lib/session.js';
import { ErrorNote, Swatch, Button } from '../components/ui.js';
import { COMMON_TYPES, type Material, type PrinterRef } from './materials-api.js';
import { fieldProblem, numberOrNull, numberText } from './settings-fields.js';

type Text = Record<(typeof TEXT_FIELDS)[number] | (typeof NUMBER_FIELDS)[number], string>;

const TEXT_FIELDS = ['type', 'brand', 'color', 'lot', 'notes'] as const;
const NUMBER_FIELDS = ['spool_weight', 'remaining_weight', 'empty_spool_weight', 'cost_per_kg', 'diameter', 'density', 'reorder_threshold'] as const;
/** Numbers the API requires when given (no null): a blank input leaves them out. */
const NOT_NULLABLE = new Set(['spool_weight', 'remaining_weight', 'diameter', 'density']);
const ALL_FIELDS = [...TEXT_FIELDS, ...NUMBER_FIELDS, 'printer_id', 'tool'];

const LABELS: Record<string, string> = {
  type: 'Type', brand: 'Brand', color: 'Colour', lot: 'Lot', notes: 'Notes', spool_weight: 'Filament on a full spool (g)',
  remaining_weight: 'Filament left (g)', empty_spool_weight: 'Empty spool weight (g)', cost_per_kg: 'Price per kg',
  diameter: 'Diameter (mm)', density: 'Density (g/cm³)', reorder_threshold: 'Reorder at (g)', printer_id: 'Load on printer', tool: 'Tool',
};

function initial(m: Material | undefined): Text {
  const t = {} as Text;
  for (const f of TEXT_FIELDS) t[f] = (m?.[f] as string | null | undefined) ?? '';
  for (const f of NUMBER_FIELDS) t[f] = numberText(m?.[f] as number | null | undefined);
  if (!m) {
    t.spool_weight = '1000';
    t.diameter = '1.75';
  }
  return t;
}

/** The request body from the inputs, or the first field that is not a number. */
function toBody(text: Text, original: Material | undefined): { body: Record<string, unknown> } | { bad: string } {
  const body: Record<string, unknown> = {};
  for (const f of TEXT_FIELDS) {
    const v = text[f].trim();
    const value = v === '' ? null : v;
    if (original ? value !== (original[f] ?? null) : value !== null) body[f] = value;
  }
  for (const f of NUMBER_FIELDS) {
    const n = numberOrNull(text[f]);
    if (Number.isNaN(n)) return { bad: f };
    if (n === null && NOT_NULLABLE.has(f)) continue;
    // Only what the person changed: the spool may be printing, and its remaining weight moves meanwhile.
    if (original ? n !== original[f] : n !== null) body[f] = n;
  }
  return { body };
}

export function SpoolForm({ material, printers, onDone, onCancel }: {
  material?: Material;
  printers: PrinterRef[];
  onDone: (saved: Material) => void;
  onCancel: () => void;
}) {
  const { currency } = useSession();
  const [text, setText] = useState<Text>(() => initial(material));
  const [printerId, setPrinterId] = useState('');
  const [tool, setTool] = useState('0');
  const [badField, setBadField] = useState<{ field: string; words: string } | null>(null);
  const idp = material ? `edit-${material.id}` : 'add-spool';

  const save = useAction(async (body: Record<string, unknown>) => {
    if (!material && printerId) {
      body.printer_id = printerId;
      body.tool = Number(tool);
    }
    if (material && Object.keys(body).length === 0) {
      onDone(material);
      return;
    }
    try {
      const saved = material ? await api.patch<Material>(`/v1/materials/${material.id}`, body) : await api.post<Material>('/v1/materials', body);
      onDone(saved);
    } catch (err) {
      const p = fieldProblem(err, ALL_FIELDS);
      if (p) setBadField({ field: p.field, words: `${LABELS[p.field] ?? p.field}: ${p.rule}.` });
      throw err;
    }
  });

  const submit = (e: Event) => {
    e.preventDefault();
    setBadField(null);
    save.clearError();
    const built = toBody(text, material);
    if ('bad' in built) {
      // Said under the field; nothing is sent.
      setBadField({ field: built.bad, words: `${LABELS[built.bad]} must be a number, like 1000 or 1.75.` });
      document.getElementById(`${idp}-${built.bad}`)?.focus();
      return;
    }
    void save.run(built.body);
  };

  const input = (f: keyof Text, extra: Record<string, unknown> = {}, hint?: string) => {
    const id = `${idp}-${f}`;
    const bad = badField?.field === f;
    const described = [hint ? `${id}-hint` : '', bad ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
    return html`<div class=${`field${bad ? ' invalid' : ''}`}>
      <label for=${id}>${f === 'cost_per_kg' ? `Price per kg (${currency})` : LABELS[f]}</label>
      ${f === 'notes'
        ? html`<textarea id=${id} rows="2" value=${text[f]} aria-invalid=${bad ? 'true' : undefined} aria-describedby=${described}
            onInput=${(e: Event) => setText({ ...text, [f]: (e.currentTarget as HTMLTextAreaElement).value })}></textarea>`
        : html`<input id=${id} value=${text[f]} aria-invalid=${bad ? 'true' : undefined} aria-describedby=${described} ...${extra}
            onInput=${(e: Event) => setText({ ...text, [f]: (e.currentTarget as HTMLInputElement).value })} />`}
      ${hint ? html`<small id=${`${id}-hint`} class="hint">${hint}</small>` : null}
      ${bad ? html`<small id=${`${id}-error`} class="field-error">${badField?.words}</small>` : null}
    </div>`;
  };
  const num = { type: 'text', inputmode: 'decimal', autocomplete: 'off' };

  return html`<form class="card spool-form" aria-labelledby=${`${idp}-title`} onSubmit=${submit}>
    <h2 id=${`${idp}-title`}>${material ? 'Edit spool' : 'Add a spool'}</h2>
    <div class="form-grid">
      ${input('type', { list: `${idp}-types`, required: true, autocomplete: 'off' }, 'PLA, PETG, ABS, ASA, TPU, PA, PC, or your own (then give its density).')}
      <datalist id=${`${idp}-types`}>${COMMON_TYPES.map((t) => html`<option value=${t}></option>`)}</datalist>
      ${input('brand', { autocomplete: 'off' })}
      <div class="color-with-swatch">
        ${input('color', { autocomplete: 'off' }, 'A name (black, red) or a hex value (#1e90ff).')}
        <${Swatch} color=${text.color || null} label=${text.color ? 'preview' : 'no colour'} />
      </div>
      ${input('spool_weight', { ...num, required: true })}
      ${input('remaining_weight', num, material ? 'Or use a weigh-in below.' : 'Empty: a full spool.')}
      ${input('empty_spool_weight', num, 'What the empty spool weighs, so a kitchen scale can tell what is left (weigh-in).')}
      ${input('cost_per_kg', num)}
      ${input('reorder_threshold', num, 'A low-stock badge (and the material.low event) when this much or less is left.')}
      ${input('diameter', num)}
      ${input('density', num, 'Empty: taken from the type.')}
      ${input('lot', { autocomplete: 'off' })}
      ${input('notes')}
      ${material
        ? null
        : html`<div class="field">
              <label for=${`${idp}-printer`}>Load on printer (optional)</label>
              <select id=${`${idp}-printer`} value=${printerId} onChange=${(e: Event) => setPrinterId((e.currentTarget as HTMLSelectElement).value)}>
                <option value="">Not loaded</option>
                ${printers.map((p) => html`<option value=${p.id}>${p.name}</option>`)}
              </select>
            </div>
            <div class="field">
              <label for=${`${idp}-tool`}>Tool</label>
              <input id=${`${idp}-tool`} type="number" min="0" max="15" step="1" value=${tool} disabled=${!printerId}
                onInput=${(e: Event) => setTool((e.currentTarget as HTMLInputElement).value)} />
            </div>`}
    </div>
    <${ErrorNote} error=${save.error} onDismiss=${save.clearError} />
    <div class="row end">
      <${Button} onClick=${onCancel}>Cancel<//>
      <${Button} type="submit" kind="primary" busy=${save.busy}>${material ? 'Save changes' : 'Add spool'}<//>
    </div>
  </form>`;
}
