// The per-printer table of the analytics page: each printer's utilization, jobs, success rate, time, filament and cost.
import { html } from '../lib/html.js';
import { duration, grams, money, percent } from '../lib/format.js';
import { Empty } from '../components/ui.js';
import type { PrinterRow } from './analytics-series.js';

const rate = (v: number) => percent(v * 100, v > 0 && v < 0.1 ? 1 : 0);

export function PrinterTable({ rows, currency }: { rows: PrinterRow[]; currency: string }) {
  if (rows.length === 0) return html`<${Empty}>No printers in this selection.<//>`;
  const sorted = [...rows].sort((a, b) => b.utilization_rate - a.utilization_rate || a.name.localeCompare(b.name));
  return html`<div class="table-wrap"><table class="data printer-stats">
    <caption class="visually-hidden">Printers over the period, busiest first</caption>
    <thead><tr>
      <th scope="col">Printer</th><th scope="col">Group</th><th scope="col" class="num">Utilization</th><th scope="col" class="num">Jobs completed</th>
      <th scope="col" class="num">Success rate</th><th scope="col" class="num">Print time</th><th scope="col" class="num">Filament</th><th scope="col" class="num">Cost</th>
    </tr></thead>
    <tbody>
      ${sorted.map((p) => html`<tr key=${p.id}>
        <th scope="row"><a href=${`#/printers/${p.id}`}>${p.name}</a></th>
        <td>${p.group ?? '–'}</td>
        <td class="num">${rate(p.utilization_rate)}</td>
        <td class="num">${p.jobs_completed}</td>
        <td class="num">${rate(p.success_rate)}</td>
        <td class="num">${duration(p.total_print_time)}</td>
        <td class="num">${grams(p.material_consumed)}</td>
        <td class="num">${money(p.estimated_cost, currency)}</td>
      </tr>`)}
    </tbody>
  </table></div>`;
}
