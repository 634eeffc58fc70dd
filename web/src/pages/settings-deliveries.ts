// A webhook's delivery log (GET /v1/webhooks/:id/deliveries) with status, attempts, answer, next attempt and Retry.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api, type Page } from '../lib/api.js';
import { useAction, useReloadOn, useResource } from '../lib/hooks.js';
import { dateTime, relative } from '../lib/format.js';
import { Button, Empty, ErrorNote, StatusBadge } from '../components/ui.js';
import { EVENT_TYPES, patternMatches } from '../../../src/events/event-names.js';
import { Pager } from './settings-fields.js';
import type { Webhook } from './settings-webhooks.js';

interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  sequence: number;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
  response_excerpt: string | null;
  created_at: string;
  delivered_at: string | null;
}

const BADGE: Record<Delivery['status'], string> = { pending: 'queued', delivered: 'completed', failed: 'failed' };

function DeliveryRow({ d, hookId, onRetried }: { d: Delivery; hookId: string; onRetried: () => void }) {
  const retry = useAction(async () => {
    await api.post(`/v1/webhooks/${hookId}/deliveries/${d.id}/retry`);
    onRetried();
  });
  return html`<tr data-delivery=${d.id}>
    <td class="num">${d.sequence}</td>
    <td><code>${d.event_type}</code></td>
    <td><${StatusBadge} status=${BADGE[d.status]} text=${d.status} /></td>
    <td class="num">${d.attempts}</td>
    <td>${d.status_code ?? html`<span class="hint">none</span>`}${d.error ? html`<div class="hint">${d.error}</div>` : null}</td>
    <td>${d.status === 'pending' && d.next_attempt_at ? relative(d.next_attempt_at) : '–'}</td>
    <td>${dateTime(d.created_at)}</td>
    <td>
      <${Button} busy=${retry.busy} onClick=${() => retry.run()} label=${`Retry delivery ${d.sequence} (${d.event_type})`}>Retry<//>
      <${ErrorNote} error=${retry.error} />
    </td>
  </tr>`;
}

export function DeliveryLog({ hook }: { hook: Webhook }) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const log = useResource(() => api.get<Page<Delivery>>(`/v1/webhooks/${hook.id}/deliveries`, { page, per_page: 20, status }), [hook.id, page, status]);
  // New deliveries follow the events this webhook takes; their attempt follows within a moment of the event.
  const types = [...EVENT_TYPES.filter((t) => hook.events.some((p) => patternMatches(p, t))), 'webhook.test'];
  useReloadOn(types, log, 1500);
  // A retry's attempt runs right after the 202: look again shortly after, once.
  const later = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => { if (later.current) clearTimeout(later.current); }, []);
  const afterRetry = () => {
    void log.reload();
    if (later.current) clearTimeout(later.current);
    later.current = setTimeout(() => void log.reload(), 1500);
  };
  const list = log.data?.data ?? [];
  return html`<section class="delivery-log" aria-labelledby=${`log-${hook.id}`} aria-busy=${log.loading ? 'true' : 'false'}>
    <div class="row between wrap">
      <h4 id=${`log-${hook.id}`}>Deliveries</h4>
      <div class="row wrap">
        <label class="inline" for=${`log-status-${hook.id}`}>Show</label>
        <select id=${`log-status-${hook.id}`} value=${status} onChange=${(e: Event) => { setStatus((e.currentTarget as HTMLSelectElement).value); setPage(1); }}>
          <option value="">All</option><option value="pending">Pending</option><option value="delivered">Delivered</option><option value="failed">Failed</option>
        </select>
        <${Button} onClick=${() => log.reload()} busy=${log.loading}>Refresh<//>
      </div>
    </div>
    <${ErrorNote} error=${log.error} />
    ${log.data && list.length === 0 ? html`<${Empty}>No deliveries${status ? ` that are ${status}` : ''} yet. Send a test to see one.<//>` : null}
    ${list.length > 0
      ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Deliveries"><table class="data deliveries">
          <caption class="visually-hidden">Deliveries of ${hook.url}, newest first</caption>
          <thead><tr><th scope="col" class="num">#</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th>
            <th scope="col">Answer</th><th scope="col">Next attempt</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>${list.map((d) => html`<${DeliveryRow} key=${d.id} d=${d} hookId=${hook.id} onRetried=${afterRetry} />`)}</tbody>
        </table></div>`
      : null}
    <${Pager} page=${page} totalPages=${log.data?.pagination.total_pages ?? 1} onPage=${setPage} label="Delivery pages" />
  </section>`;
}
