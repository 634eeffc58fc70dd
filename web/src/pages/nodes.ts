// The Nodes page (#/nodes): every box sharing the farm's database, its address, version and state, and the printers
// it drives with what they print.
import { html } from '../lib/html.js';
import { dateTime, percent } from '../lib/format.js';
import { href } from '../lib/router.js';
import { Empty, ErrorNote, PageHeader, StatusBadge } from '../components/ui.js';
import { stateWords, useNodes, type FarmNode } from './nodes-data.js';
import type { PageDef } from './index.js';
import '../styles/nodes.css';

function NodePrinters({ node }: { node: FarmNode }) {
  if (node.printers.length === 0) return html`<p class="muted">It drives no printer.</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label=${`Printers of ${node.name}`}>
    <table class="data node-printers">
      <thead><tr><th scope="col">Printer</th><th scope="col">Status</th><th scope="col">Printing</th></tr></thead>
      <tbody>
        ${node.printers.map(
          (p) => html`<tr key=${p.id} data-printer-id=${p.id}>
            <td><a href=${href('printers', p.id)}>${p.name}</a></td>
            <td><${StatusBadge} status=${p.status} /></td>
            <td class="node-job">${p.job ? html`${p.job.name} <span class="muted">· ${percent(p.job.progress)}</span>` : html`<span class="muted">nothing</span>`}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** "Lost since Nov 23, 10:02 AM": only the first letter up (the badge's own capitalizing would take every word's). */
const upperFirst = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function NodeCard({ node }: { node: FarmNode }) {
  const titleId = `node-${node.id}-name`;
  return html`<article class=${`card node-card node-${node.state}`} aria-labelledby=${titleId} data-node-id=${node.id}>
    <header class="pc-head">
      <h2 id=${titleId} class="pc-name">${node.name}${node.self ? html` <span class="muted node-self">(this box)</span>` : null}</h2>
      <${StatusBadge} status=${node.state} text=${upperFirst(stateWords(node, dateTime))} />
    </header>
    <dl class="node-facts">
      <div><dt>Address</dt><dd>${node.address ? html`<a href=${node.address}>${node.address}</a>` : html`<span class="muted">not set</span>`}</dd></div>
      <div><dt>Version</dt><dd>${node.version}</dd></div>
      <div><dt>Started</dt><dd>${dateTime(node.started_at)}</dd></div>
      <div><dt>Last heartbeat</dt><dd>${dateTime(node.last_seen_at)}</dd></div>
    </dl>
    <${NodePrinters} node=${node} />
  </article>`;
}

export function NodesPage() {
  const nodes = useNodes();
  return html`<section class="nodes">
    <${PageHeader} title="Nodes" />
    <p class="muted nodes-intro">The boxes sharing this farm's database. Each drives its own printers; every box shows and schedules the whole farm.</p>
    <${ErrorNote} error=${nodes.error} />
    ${nodes.data === undefined
      ? nodes.error
        ? null
        : html`<p class="muted" aria-busy="true">Loading the nodes…</p>`
      : nodes.data.length === 0
        ? html`<${Empty}>No node has registered yet.<//>`
        : html`<div class="nodes-list">${nodes.data.map((n) => html`<${NodeCard} key=${n.id} node=${n} />`)}</div>`}
  </section>`;
}

export const nodesPage: PageDef = { path: 'nodes', title: 'Nodes', nav: true, scope: 'printers:read', component: NodesPage };
