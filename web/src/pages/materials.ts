// The Materials page (#/materials, #/materials/mat_x): the spool inventory with filters, add form, and one spool's detail panel.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api, type Page } from '../lib/api.js';
import { useAction, useReloadOn, useResource } from '../lib/hooks.js';
import { useSession } from '../lib/session.js';
import { grams } from '../lib/format.js';
import type { Route } from '../lib/router.js';
import { Button, ConfirmButton, Empty, ErrorNote, PageHeader, ProgressBar, StatusBadge, Swatch } from '../components/ui.js';
import type { PageDef } from './index.js';
import { isLow, loadPrinters, remainingPercent, spoolName, type Material, type PrinterRef } from './materials-api.js';
import { SpoolForm } from './materials-form.js';
import { LoadControls, WeighIn } from './materials-load.js';
import { UsageHistory } from './materials-usage.js';
import { NeedsScope, Pager } from './settings-fields.js';
import '../styles/materials.css';

// material.updated comes with every change of a spool, a print's draw-down included (each coalesced write, about every
// 3 s); job events change the usage history.
const LIVE = ['material.*', 'job.*'];

/** Low stock in words and an icon, not only colour. */
const LowBadge = () => html`<span class="badge status-low_stock"><span aria-hidden="true">⚠</span> Low stock</span>`;

function Remaining({ m }: { m: Material }) {
  return html`<div class="remaining">
    <${ProgressBar} value=${remainingPercent(m)} label=${`Filament left on ${spoolName(m)}`} />
    <span class="remaining-text">${grams(m.remaining_weight)} of ${grams(m.spool_weight)}</span>
  </div>`;
}

function SpoolTable({ items, printers }: { items: Material[]; printers: PrinterRef[] }) {
  const printerName = (id: string) => printers.find((p) => p.id === id)?.name ?? id;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Spools"><table class="data spool-table">
    <caption class="visually-hidden">Spools</caption>
    <thead><tr>
      <th scope="col">Spool</th><th scope="col">Type</th><th scope="col">Left</th><th scope="col">Status</th><th scope="col">Loaded on</th><th scope="col"><span class="visually-hidden">Actions</span></th>
    </tr></thead>
    <tbody>
      ${items.map((m) => html`<tr key=${m.id} data-id=${m.id}>
        <td data-label="Spool"><div><${Swatch} color=${m.color} label=${m.color ?? 'no colour'} />${m.brand ? html`<span class="hint">${m.brand}</span>` : null}</div></td>
        <td data-label="Type">${m.type}</td>
        <td data-label="Left"><${Remaining} m=${m} /></td>
        <td data-label="Status"><span class="badges"><${StatusBadge} status=${m.status} />${isLow(m) ? html` <${LowBadge} />` : null}</span></td>
        <td data-label="Loaded on"><span>${m.printer_id ? html`<a href=${`#/printers/${m.printer_id}`}>${printerName(m.printer_id)}</a>, tool ${m.tool}` : html`<span class="hint">not loaded</span>`}</span></td>
        <td><a class="btn secondary" href=${`#/materials/${m.id}`} aria-label=${`Details of ${spoolName(m)} (${m.id})`}>Details</a></td>
      </tr>`)}
    </tbody>
  </table></div>`;
}

function SpoolDetail({ id, printers, onChanged }: { id: string; printers: PrinterRef[]; onChanged: () => void }) {
  const { can } = useSession();
  // The id comes from the address: encoded, so it can only ever name a spool.
  const at = `/v1/materials/${encodeURIComponent(id)}`;
  const spool = useResource(() => api.get<Material>(at), [id]);
  useReloadOn(LIVE, spool);
  const [editing, setEditing] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [id]);
  const changed = (m: Material) => {
    spool.set(m);
    onChanged();
  };
  const archive = useAction(async () => {
    await api.del(at);
    await spool.reload();
    onChanged();
  });
  const restore = useAction(async () => changed(await api.patch<Material>(at, { status: 'active' })));
  const m = spool.data;
  const write = can('materials:write');

  return html`<aside class="card spool-detail" aria-labelledby="spool-detail-title" aria-busy=${spool.loading ? 'true' : 'false'}>
    <div class="row between">
      <h2 id="spool-detail-title" tabindex="-1" ref=${heading}>${m ? spoolName(m) : 'Spool'}</h2>
      <a class="btn link" href="#/materials">Close</a>
    </div>
    <${ErrorNote} error=${spool.error} />
    ${m
      ? html`<div class="detail-summary">
            <${Swatch} color=${m.color} label=${m.color ?? 'no colour'} />
            <${StatusBadge} status=${m.status} />${isLow(m) ? html`<${LowBadge} />` : null}
            <${Remaining} m=${m} />
            <dl class="kv">
              <dt>Reorder at</dt><dd>${m.reorder_threshold === null ? 'not set' : grams(m.reorder_threshold)}</dd>
              <dt>Empty spool</dt><dd>${m.empty_spool_weight === null ? 'unknown' : grams(m.empty_spool_weight)}</dd>
              <dt>Diameter</dt><dd>${m.diameter} mm</dd>
              <dt>Density</dt><dd>${m.density} g/cm³</dd>
              ${m.lot ? html`<dt>Lot</dt><dd>${m.lot}</dd>` : null}
              <dt>Id</dt><dd><code>${m.id}</code></dd>
            </dl>
            ${m.notes ? html`<p class="notes">${m.notes}</p>` : null}
          </div>
          ${write
            ? html`${editing
                  ? html`<${SpoolForm} material=${m} printers=${printers} onCancel=${() => setEditing(false)} onDone=${(saved: Material) => { setEditing(false); changed(saved); }} />`
                  : html`<div class="row wrap">
                      <${Button} onClick=${() => setEditing(true)}>Edit<//>
                      ${m.status === 'archived'
                        ? html`<${Button} busy=${restore.busy} onClick=${() => restore.run()}>Restore<//>`
                        : html`<${ConfirmButton} id=${`archive-${m.id}`} title="Archive this spool?" confirmText="Archive" busy=${archive.busy}
                            message=${`${spoolName(m)} leaves the inventory and is unloaded${m.printer_id ? ' from its printer' : ''}. Jobs that used it keep their history, and you can restore it later.`}
                            onConfirm=${() => archive.run()}>Archive<//>`}
                    </div>`}
                <${ErrorNote} error=${archive.error ?? restore.error} />
                <${LoadControls} material=${m} printers=${printers} onChanged=${changed} />
                ${m.status !== 'archived' ? html`<${WeighIn} material=${m} onChanged=${changed} />` : null}`
            : html`<${NeedsScope} scope="materials:write" what="Changing, loading or weighing spools" />`}
          <${UsageHistory} materialId=${m.id} printers=${printers} />`
      : null}
  </aside>`;
}

const STATUS_CHOICES = [
  ['active', 'Active'],
  ['empty', 'Empty'],
  ['archived', 'Archived'],
  ['', 'Any status'],
] as const;

export function MaterialsPage({ route }: { route: Route }) {
  const { can } = useSession();
  const [type, setType] = useState('');
  const [color, setColor] = useState('');
  const [status, setStatus] = useState('active');
  const [lowOnly, setLowOnly] = useState(false);
  const [page, setPage] = useState(1);
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState<Material | null>(null);
  const list = useResource(
    () => api.get<Page<Material>>('/v1/materials', { type, color, status, low_stock: lowOnly ? 'true' : null, page, per_page: 50, sort: 'type,color' }),
    [type, color, status, lowOnly, page],
  );
  const printers = useResource(loadPrinters, []);
  useReloadOn(LIVE, list);
  useReloadOn(['printer.online', 'printer.offline'], printers, 2000);
  const items = list.data?.data ?? [];
  const selected = route.parts[1] ?? null;
  const filterSet = (set: (v: string) => void) => (e: Event) => {
    set((e.currentTarget as HTMLInputElement).value.trim());
    setPage(1);
  };

  if (!can('materials:read')) return html`<${PageHeader} title="Materials" /><${NeedsScope} scope="materials:read" what="The spool inventory" />`;
  return html`<div class="materials-page">
    <${PageHeader} title="Materials">
      ${can('materials:write') && !adding ? html`<${Button} kind="primary" onClick=${() => { setAdding(true); setAdded(null); }}>Add spool<//>` : null}
    <//>
    ${adding
      ? html`<${SpoolForm} printers=${printers.data ?? []} onCancel=${() => setAdding(false)}
          onDone=${(m: Material) => { setAdding(false); setAdded(m); void list.reload(); }} />`
      : null}
    ${added ? html`<div class="note success" role="status"><span>Added ${spoolName(added)}. <a href=${`#/materials/${added.id}`}>Open it</a> to load it on a printer or weigh it.</span></div>` : null}
    <form class="row wrap filters" role="search" aria-label="Filter spools" onSubmit=${(e: Event) => e.preventDefault()}>
      <div class="field"><label for="mf-type">Type</label><input id="mf-type" type="search" value=${type} placeholder="any" onChange=${filterSet(setType)} /></div>
      <div class="field"><label for="mf-color">Colour</label><input id="mf-color" type="search" value=${color} placeholder="any" onChange=${filterSet(setColor)} /></div>
      <div class="field"><label for="mf-status">Status</label>
        <select id="mf-status" value=${status} onChange=${filterSet(setStatus)}>${STATUS_CHOICES.map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select>
      </div>
      <label class="check"><input type="checkbox" checked=${lowOnly} onChange=${(e: Event) => { setLowOnly((e.currentTarget as HTMLInputElement).checked); setPage(1); }} /> Low stock only</label>
    </form>
    <${ErrorNote} error=${list.error ?? printers.error} />
    <div class=${`materials-layout${selected ? ' with-detail' : ''}`}>
      ${selected ? html`<${SpoolDetail} key=${selected} id=${selected} printers=${printers.data ?? []} onChanged=${() => void list.reload()} />` : null}
      <section class="spool-list" aria-label="Spool inventory" aria-busy=${list.loading ? 'true' : 'false'}>
        ${list.data && items.length === 0
          ? html`<${Empty}>${type || color || lowOnly || status !== 'active' ? 'No spool matches these filters.' : 'No spools yet. Add one with “Add spool” to track what is left on it.'}<//>`
          : null}
        ${items.length > 0 ? html`<${SpoolTable} items=${items} printers=${printers.data ?? []} />` : null}
        ${list.data ? html`<p class="hint">${list.data.pagination.total} spool${list.data.pagination.total === 1 ? '' : 's'}</p>` : null}
        <${Pager} page=${page} totalPages=${list.data?.pagination.total_pages ?? 1} onPage=${setPage} label="Spool pages" />
      </section>
    </div>
  </div>`;
}

export const materialsPage: PageDef = { path: 'materials', title: 'Materials', nav: true, scope: 'materials:read', component: MaterialsPage };
