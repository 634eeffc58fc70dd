// A spool's usage history (GET /v1/materials/:id/usage): which job drew how much, newest first, reloaded live while printing.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api, type Page } from '../lib/api.js';
import { useReloadOn, useResource } from '../lib/hooks.js';
import { useSession } from '../lib/session.js';
import { dateTime, grams, money } from '../lib/format.js';
import { ErrorNote, Empty, StatusBadge } from '../components/ui.js';
import type { PrinterRef, UsageLine } from './materials-api.js';
import { Pager } from './settings-fields.js';

export function UsageHistory({ materialId, printers }: { materialId: string; printers: PrinterRef[] }) {
  const { currency } = useSession();
  const [page, setPage] = useState(1);
  const usage = useResource(() => api.get<Page<UsageLine>>(`/v1/materials/${encodeURIComponent(materialId)}/usage`, { page, per_page: 20 }), [materialId, page]);
  useReloadOn(['job.*'], usage, 1000);
  const name = (id: string | null) => (id ? printers.find((p) => p.id === id)?.name ?? id : '–');
  const lines = usage.data?.data ?? [];
  const showCost = lines.some((l) => l.cost !== undefined && l.cost !== null);

  return html`<section class="usage-history" aria-labelledby=${`usage-${materialId}`} aria-busy=${usage.loading ? 'true' : 'false'}>
    <h3 id=${`usage-${materialId}`}>Usage history</h3>
    <${ErrorNote} error=${usage.error} />
    ${usage.data && lines.length === 0 ? html`<${Empty}>No job has used this spool yet. Jobs printed with it loaded show here with the grams they used.<//>` : null}
    ${lines.length > 0
      ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Usage history"><table class="data usage-table">
          <caption class="visually-hidden">Jobs that used this spool, newest first</caption>
          <thead><tr><th scope="col">When</th><th scope="col">Job</th><th scope="col">Printer</th><th scope="col">Tool</th><th scope="col" class="num">Used</th>${showCost ? html`<th scope="col" class="num">Cost</th>` : null}</tr></thead>
          <tbody>
            ${lines.map((l) => html`<tr key=${`${l.job_id}-${l.tool}`}>
              <td>${dateTime(l.at)}</td>
              <td>${l.job_name}${l.job_status === 'printing' || l.job_status === 'paused' ? html` <${StatusBadge} status=${l.job_status} />` : null}</td>
              <td>${l.printer_id ? html`<a href=${`#/printers/${l.printer_id}`}>${name(l.printer_id)}</a>` : '–'}</td>
              <td>${l.tool}</td>
              <td class="num">${grams(l.grams)}</td>
              ${showCost ? html`<td class="num">${money(l.cost ?? null, currency)}</td>` : null}
            </tr>`)}
          </tbody>
        </table></div>`
      : null}
    <${Pager} page=${page} totalPages=${usage.data?.pagination.total_pages ?? 1} onPage=${setPage} label="Usage history pages" />
  </section>`;
}
