// The settings of a queued print (copies, priority, material, colour, printer or group) as one set of form fields,
// shared by the upload batches and the stored files' Queue form, with their check and their create-request fields.
import { html } from '../lib/html.js';
import { Field } from '../components/ui.js';
import { PRIORITIES, PRIORITY_WORDS, type Priority } from './queue-types.js';
import type { Printer } from './printer-types.js';

export interface Settings {
  copies: string;
  priority: Priority;
  material: string;
  color: string;
  /** '' any printer, 'printer:<id>' or 'group:<name>'. */
  target: string;
}

export const DEFAULTS: Settings = { copies: '1', priority: 'normal', material: '', color: '', target: '' };

export function settingsProblem(s: Settings): string | null {
  if (!/^\d+$/.test(s.copies.trim()) || Number(s.copies) < 1 || Number(s.copies) > 100) return 'Copies: enter a whole number from 1 to 100.';
  if (s.color.trim() && !s.material.trim()) return 'Colour: name the material type too (for example PLA), or leave the colour empty.';
  return null;
}

/** The create request's fields (POST /v1/jobs) for these settings; the material as a type or { type, color }. */
export function settingsFields(s: Settings): { copies: number; priority: Priority; material?: { type: string; color?: string }; printer_id?: string; group?: string } {
  const type = s.material.trim();
  const color = s.color.trim();
  return {
    copies: Number(s.copies),
    priority: s.priority,
    ...(type ? { material: color ? { type, color } : { type } } : {}),
    ...(s.target.startsWith('printer:') ? { printer_id: s.target.slice(8) } : {}),
    ...(s.target.startsWith('group:') ? { group: s.target.slice(6) } : {}),
  };
}

export function targetWords(s: Settings, printers: Printer[]): string {
  if (s.target.startsWith('printer:')) {
    const id = s.target.slice(8);
    return `on ${printers.find((p) => p.id === id)?.name ?? id}`;
  }
  if (s.target.startsWith('group:')) return `in group ${s.target.slice(6)}`;
  return 'on any fitting printer';
}

/**
 * The fields, editing `settings` in place (`onChange` re-renders). `idPrefix` keeps ids unique when several forms are
 * on the page; `materialHint` is what an empty material means (the file's own type, when known).
 */
export function SettingsFields({ idPrefix, settings, printers, onChange, copiesLabel = 'Copies', materialHint = 'from the file' }: {
  idPrefix: string; settings: Settings; printers: Printer[]; onChange: () => void; copiesLabel?: string; materialHint?: string;
}) {
  const id = (name: string) => `${idPrefix}-${name}`;
  const set = (k: keyof Settings) => (e: Event) => {
    (settings as unknown as Record<string, string>)[k] = (e.target as HTMLInputElement).value;
    onChange();
  };
  const s = settings;
  const groups = [...new Set(printers.map((p) => p.group).filter((g): g is string => !!g))].sort();
  return html`<div class="batch-fields">
    <${Field} id=${id('copies')} label=${copiesLabel} hint="1 to 100; copies spread over every fitting printer.">
      <input id=${id('copies')} type="number" inputmode="numeric" min="1" max="100" step="1" value=${s.copies} onInput=${set('copies')} aria-describedby=${`${id('copies')}-hint`} required />
    <//>
    <${Field} id=${id('priority')} label="Priority">
      <select id=${id('priority')} value=${s.priority} onChange=${set('priority')}>
        ${PRIORITIES.map((p) => html`<option value=${p}>${PRIORITY_WORDS[p]}</option>`)}
      </select>
    <//>
    <${Field} id=${id('material')} label="Material type (optional)" hint="Only printers with this material loaded take it, e.g. PLA.">
      <input id=${id('material')} type="text" maxlength="50" value=${s.material} onInput=${set('material')} aria-describedby=${`${id('material')}-hint`} placeholder=${materialHint} />
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
  </div>`;
}
