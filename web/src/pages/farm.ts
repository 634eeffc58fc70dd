// The home page (#/): every printer as a live card, a summary line, filters by group, tag and status kept in the hash query.
import { html } from '../lib/html.js';
import { navigate, type Route } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { ErrorNote, Empty, Notice, PageHeader } from '../components/ui.js';
import { PrinterCard } from '../components/printer-card.js';
import { useCameraMap } from '../lib/cameras.js';
import { applyFilters, filterQuery, filtersOf, PRINTER_STATUSES, summarize, useFarmData, type FarmFilters, type Printer } from './farm-data.js';
import type { PageDef } from './index.js';
import { dateTime } from '../lib/format.js';
import { stateWords, useNodes, type FarmNode } from './nodes-data.js';
import '../styles/farm.css';

/** A box the others marked lost: its printers are offline here and its printing jobs failed with node_lost. */
function LostNodes({ nodes }: { nodes: FarmNode[] }) {
  const lost = nodes.filter((n) => n.state === 'lost');
  if (lost.length === 0) return null;
  return html`<div class="lost-nodes">
    <${Notice} kind="warning">
      ${lost.map(
        (n) => html`<p key=${n.id}>
          <strong>Box ${n.name} is ${stateWords(n, dateTime)}</strong>${`: no heartbeat for 30 s. ${n.printers.length === 1 ? 'Its printer is' : `Its ${n.printers.length} printers are`} offline; jobs that were printing there failed. `}<a href="#/nodes">See the nodes</a>
        </p>`,
      )}
    <//>
  </div>`;
}

/** "3 printers: 1 printing, 1 idle (1 waiting for the bed to be cleared), 1 offline or in error". */
export function SummaryLine({ printers }: { printers: Printer[] }) {
  const n = summarize(printers);
  const parts = [
    `${n.printing} printing`,
    n.paused ? `${n.paused} paused` : null,
    `${n.idle} idle${n.notReady ? ` (${n.notReady} waiting for the bed to be cleared)` : ''}`,
    `${n.down} offline or in error`,
  ].filter(Boolean);
  return html`<p class="farm-summary"><strong>${printers.length} ${printers.length === 1 ? 'printer' : 'printers'}:</strong> ${parts.join(', ')}</p>`;
}

function Filters({ printers, filters }: { printers: Printer[]; filters: FarmFilters }) {
  const groups = [...new Set(printers.map((p) => p.group).filter((g): g is string => !!g))].sort();
  const tags = [...new Set(printers.flatMap((p) => p.tags))].sort();
  const set = (key: keyof FarmFilters, value: string) => navigate(`#/${filterQuery({ ...filters, [key]: value })}`);
  const select = (key: keyof FarmFilters, label: string, all: string, options: readonly string[]) => html`<div class="field-inline">
    <label for=${`filter-${key}`}>${label}</label>
    <select id=${`filter-${key}`} value=${filters[key]} onChange=${(e: Event) => set(key, (e.target as HTMLSelectElement).value)}>
      <option value="">${all}</option>
      ${options.map((o) => html`<option key=${o} value=${o}>${o}</option>`)}
      ${filters[key] && !options.includes(filters[key]) ? html`<option value=${filters[key]}>${filters[key]}</option>` : null}
    </select>
  </div>`;
  const any = filters.group || filters.tag || filters.status;
  return html`<form class="farm-filters row" role="search" aria-label="Filter printers" onSubmit=${(e: Event) => e.preventDefault()}>
    ${select('group', 'Group', 'All groups', groups)}
    ${select('tag', 'Tag', 'All tags', tags)}
    ${select('status', 'Status', 'Any status', PRINTER_STATUSES)}
    ${any ? html`<a class="btn link clear-filters" href="#/">Clear filters</a>` : null}
  </form>`;
}

export function FarmPage({ route }: { route: Route }) {
  const { can } = useSession();
  const farm = useFarmData();
  const cameras = useCameraMap();
  const nodes = useNodes();
  // Which box drives each printer: said only on a farm of several boxes.
  const nodeNames = new Map((nodes.data && nodes.data.length > 1 ? nodes.data : []).map((n) => [n.id, n.name]));
  const filters = filtersOf(route);
  const shown = farm.printers ? applyFilters(farm.printers, filters) : [];
  return html`<section class="farm">
    <${PageHeader} title="Farm">
      ${can('printers:write') ? html`<a class="btn secondary" href="#/add-printer">Add printer</a>` : null}
      <a class="btn secondary" href=${`#/wall${filterQuery(filters)}`}>Wall mode</a>
    <//>
    <${ErrorNote} error=${farm.error} />
    <${LostNodes} nodes=${nodes.data ?? []} />
    ${farm.printers === undefined
      ? farm.error
        ? null
        : html`<p class="muted" aria-busy="true">Loading the printers…</p>`
      : farm.printers.length === 0
        ? html`<${Empty}>No printers yet. ${can('printers:write') ? html`<a href="#/add-printer">Add a printer</a>` : 'An admin can add printers'}; it shows here as soon as it is added.<//>`
        : html`
          <${SummaryLine} printers=${farm.printers} />
          <${Filters} printers=${farm.printers} filters=${filters} />
          ${shown.length === 0
            ? html`<${Empty}>No printer matches these filters. <a href="#/">Clear filters</a><//>`
            : html`<div class="grid farm-grid">
                ${shown.map(
                  (p) => html`<${PrinterCard} key=${p.id} printer=${p} job=${p.current_job ? farm.jobs.get(p.current_job) : undefined}
                    next=${farm.next.get(p.id)} cameras=${cameras.get(p.id)} nodeName=${p.node_id ? nodeNames.get(p.node_id) : undefined} canAct=${can('printers:write')} onChanged=${farm.setPrinter} />`,
                )}
              </div>`}
        `}
  </section>`;
}

export const farmPage: PageDef = { path: '', title: 'Farm', nav: true, scope: 'printers:read', component: FarmPage };
