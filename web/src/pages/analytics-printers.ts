// The per-printer table of the analytics page: each printer's utilization, jobs, success rate, time, filament and cost.
import { html } from '../lib/html.js';
import { duration, grams, money } from '../lib/format.js';
import { Empty } from '../components/ui.js';
import { rate, type PrinterRow } from './analytics-series.js';

/** `periodSeconds` turns each printer's seconds into its share (the export's rate has 4 decimals only). */
export function PrinterTable({ rows, currency, periodSeconds }: { rows: PrinterRow[]; currency: string; periodSeconds: number }) {
  const share = (p: PrinterRow) => (periodSeconds > 0 ? p.total_print_time / periodSeconds : p.utilization_rate);
  if (rows.length === 0) return html`<${Empty}>No printers in this selection.<//>`;
  const sorted = [...rows].sort((a, b) => share(b) - share(a) || a.name.localeCompare(b.name));
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Printers over the period"><table class="data printer-stats">
    <caption class="visually-hidden">Printers over the period, busiest first</caption>
    <thead><tr>
      <th scope="col">Printer</th><th scope="col">Group</th><th scope="col" class="num">Utilization</th><th scope="col" class="num">Jobs completed</th>
      <th scope="col" class="num">Success rate</th><th scope="col" class="num">Print time</th><th scope="col" class="num">Filament</th><th scope="col" class="num">Cost</th>
    </tr></thead>
    <tbody>
      ${sorted.map((p) => html`<tr key=${p.id}>
        <th scope="row"><a href=${`#/printers/${p.id}`}>${p.name}</a></th>
        <td>${p.group ?? '–'}</td>
        <td class="num">${rate(share(p))}</td>
        <td class="num">${p.jobs_completed}</td>
        <td class="num">${rate(p.success_rate)}</td>
        <td class="num">${duration(p.total_print_time)}</td>
        <td class="num">${grams(p.material_consumed)}</td>
        <td class="num">${money(p.estimated_cost, currency)}</td>
      </tr>`)}
    </tbody>
  </table></div>`;
}
