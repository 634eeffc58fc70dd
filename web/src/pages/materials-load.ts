// A spool's load/unload controls (PATCH printer_id + tool, or printer_id null) and its weigh-in (measured_gross_weight).
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction } from '../lib/hooks.js';
import { grams } from '../lib/format.js';
import { ErrorNote, Button, Field } from '../components/ui.js';
import type { Material, PrinterRef } from './materials-api.js';
import { fieldProblem, numberOrNull } from './settings-fields.js';

export function LoadControls({ material, printers, onChanged }: { material: Material; printers: PrinterRef[]; onChanged: (m: Material) => void }) {
  const [picked, setPrinterId] = useState(material.printer_id ?? '');
  // The printers may arrive after the first render: until one is picked, the first is preselected.
  const printerId = picked || printers[0]?.id || '';
  const [tool, setTool] = useState(String(material.tool ?? 0));
  const load = useAction(async () => onChanged(await api.patch<Material>(`/v1/materials/${material.id}`, { printer_id: printerId, tool: Number(tool) })));
  const unload = useAction(async () => onChanged(await api.patch<Material>(`/v1/materials/${material.id}`, { printer_id: null })));
  const where = printers.find((p) => p.id === material.printer_id);
  const id = `load-${material.id}`;

  if (material.status === 'archived') return html`<p class="hint">An archived spool cannot be loaded. Restore it first.</p>`;
  return html`<section class="load-controls" aria-labelledby=${`${id}-title`}>
    <h3 id=${`${id}-title`}>Printer</h3>
    ${material.printer_id
      ? html`<p>Loaded on <a href=${`#/printers/${material.printer_id}`}>${where?.name ?? material.printer_id}</a>, tool ${material.tool}.</p>
          <${Button} busy=${unload.busy} onClick=${() => unload.run()}>Unload<//>
          <${ErrorNote} error=${unload.error} onDismiss=${unload.clearError} />`
      : html`<p>Not loaded on a printer.</p>`}
    ${printers.length === 0
      ? html`<p class="hint">There is no printer to load it on yet: add one on the farm page.</p>`
      : html`<form class="row wrap load-form" onSubmit=${(e: Event) => { e.preventDefault(); void load.run(); }}>
          <${Field} id=${`${id}-printer`} label=${material.printer_id ? 'Move to printer' : 'Load on printer'}>
            <select id=${`${id}-printer`} value=${printerId} onChange=${(e: Event) => setPrinterId((e.currentTarget as HTMLSelectElement).value)}>
              ${printers.map((p) => html`<option value=${p.id}>${p.name}</option>`)}
            </select>
          <//>
          <${Field} id=${`${id}-tool`} label="Tool (extruder)">
            <input id=${`${id}-tool`} type="number" min="0" max="15" step="1" value=${tool} onInput=${(e: Event) => setTool((e.currentTarget as HTMLInputElement).value)} />
          <//>
          <${Button} type="submit" kind="primary" busy=${load.busy} disabled=${!printerId}>${material.printer_id ? 'Move' : 'Load'}<//>
        </form>
        <p class="hint">A spool already on that tool is taken off (it stays in the inventory).</p>
        <${ErrorNote} error=${load.error} onDismiss=${load.clearError} />`}
  </section>`;
}

export function WeighIn({ material, onChanged }: { material: Material; onChanged: (m: Material) => void }) {
  const [gross, setGross] = useState('');
  const [tare, setTare] = useState(material.empty_spool_weight === null ? '' : String(material.empty_spool_weight));
  const [bad, setBad] = useState<{ field: string; words: string | null } | null>(null);
  const id = `weigh-${material.id}`;
  const knownTare = material.empty_spool_weight;
  const grossN = numberOrNull(gross);
  const tareN = knownTare ?? numberOrNull(tare);
  const preview = grossN !== null && !Number.isNaN(grossN) && tareN !== null && !Number.isNaN(tareN) ? grossN - tareN : null;

  const weigh = useAction(async (body: Record<string, number>) => {
    try {
      onChanged(await api.patch<Material>(`/v1/materials/${material.id}`, body));
      setGross('');
    } catch (err) {
      // The server's words show below; the field it names is marked.
      const p = fieldProblem(err, ['measured_gross_weight', 'empty_spool_weight']);
      if (p) setBad({ field: p.field, words: null });
      throw err;
    }
  });
  const submit = (e: Event) => {
    e.preventDefault();
    setBad(null);
    weigh.clearError();
    if (grossN === null || Number.isNaN(grossN)) return setBad({ field: 'measured_gross_weight', words: 'Enter the weight the scale shows, in grams.' });
    const body: Record<string, number> = { measured_gross_weight: grossN };
    if (knownTare === null) {
      if (tareN === null || Number.isNaN(tareN)) {
        return setBad({ field: 'empty_spool_weight', words: "Enter what the empty spool weighs in grams (often printed on the spool or on the maker's site)." });
      }
      body.empty_spool_weight = tareN;
    }
    if (preview !== null && preview < 0) {
      return setBad({ field: 'measured_gross_weight', words: `That is less than the empty spool (${grams(tareN)}): weigh the spool with its filament on it.` });
    }
    void weigh.run(body);
  };
  const invalid = (f: string) => (bad?.field === f ? 'true' : undefined);

  return html`<form class="weigh-in" aria-labelledby=${`${id}-title`} onSubmit=${submit} novalidate>
    <h3 id=${`${id}-title`}>Weigh-in</h3>
    <p class="hint" id=${`${id}-explain`}>
      Put the spool on a scale and enter what it shows. The filament left is that weight minus the weight of the empty spool
      ${knownTare === null ? ' (the spool itself, without filament; enter it once below, it is kept for next time).' : html` (${grams(knownTare)} for this spool).`}
    </p>
    <div class="row wrap">
      <div class=${`field${bad?.field === 'measured_gross_weight' ? ' invalid' : ''}`}>
        <label for=${`${id}-gross`}>Scale shows (g)</label>
        <input id=${`${id}-gross`} type="text" inputmode="decimal" autocomplete="off" value=${gross}
          aria-describedby=${`${id}-explain${bad?.words ? ` ${id}-error` : ''}`} aria-invalid=${invalid('measured_gross_weight')}
          onInput=${(e: Event) => setGross((e.currentTarget as HTMLInputElement).value)} />
      </div>
      ${knownTare === null
        ? html`<div class=${`field${bad?.field === 'empty_spool_weight' ? ' invalid' : ''}`}>
            <label for=${`${id}-tare`}>Empty spool weight (g)</label>
            <input id=${`${id}-tare`} type="text" inputmode="decimal" autocomplete="off" value=${tare} aria-invalid=${invalid('empty_spool_weight')}
              aria-describedby=${bad?.words ? `${id}-error` : undefined} onInput=${(e: Event) => setTare((e.currentTarget as HTMLInputElement).value)} />
          </div>`
        : null}
      <${Button} type="submit" kind="primary" busy=${weigh.busy}>Set from scale<//>
    </div>
    ${bad?.words ? html`<p class="field-error" id=${`${id}-error`}>${bad.words}</p>` : null}
    ${preview !== null && preview >= 0 && !bad ? html`<p class="weigh-preview" aria-live="polite">Filament left will be ${grams(preview)}.</p>` : null}
    <${ErrorNote} error=${weigh.error} onDismiss=${weigh.clearError} />
  </form>`;
}
