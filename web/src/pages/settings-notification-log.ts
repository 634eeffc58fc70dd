// A notification channel's delivery log (GET /v1/notifications/channels/:id/deliveries): each message, how many events
// it groups, its state, attempts and what the service answered.
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useReloadOn, useResource } from '../lib/hooks.js';
import { dateTime, relative } from '../lib/format.js';
import { Button, Empty, ErrorNote, StatusBadge } from '../components/ui.js';

interface Message {
  id: string;
  mode: 'now' | 'digest' | 'test';
  events: number;
  title: string | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string | null;
  last_status: string | null;
  error: string | null;
  created_at: string;
}

const BADGE: Record<Message['status'], string> = { pending: 'queued', delivered: 'completed', failed: 'failed' };
const MODE: Record<Message['mode'], string> = { now: 'message', digest: 'digest', test: 'test' };

export function NotificationLog({ channelId, name, version, paused }: { channelId: string; name: string; version: number; paused: boolean }) {
  const log = useResource(() => api.get<{ data: Message[] }>(`/v1/notifications/channels/${channelId}/deliveries`), [channelId, version]);
  // A message follows its events by a few seconds (grouping): look again after any event.
  useReloadOn(['*'], log, 3000);
  const list = log.data?.data ?? [];
  return html`<section class="delivery-log" aria-labelledby=${`nlog-${channelId}`} aria-busy=${log.loading ? 'true' : 'false'}>
    <div class="row between wrap">
      <h4 id=${`nlog-${channelId}`}>Delivery log</h4>
      <${Button} onClick=${() => log.reload()} busy=${log.loading}>Refresh<//>
    </div>
    <${ErrorNote} error=${log.error} />
    ${log.data && list.length === 0 ? html`<${Empty}>Nothing sent yet. Send a test to see one.<//>` : null}
    ${list.length > 0
      ? html`<div class="table-wrap" tabindex="0" role="region" aria-label=${`Delivery log of ${name}`}><table class="data deliveries">
          <caption class="visually-hidden">Messages of ${name}, newest first</caption>
          <thead><tr><th scope="col">Created</th><th scope="col">Message</th><th scope="col" class="num">Events</th><th scope="col">Status</th>
            <th scope="col" class="num">Attempts</th><th scope="col">Answer</th><th scope="col">Next attempt</th></tr></thead>
          <tbody>${list.map((m) => html`<tr key=${m.id} data-message=${m.id}>
            <td>${dateTime(m.created_at)}</td>
            <td>${m.title ?? html`<span class="hint">(not composed yet)</span>`} <small class="hint">${MODE[m.mode]}</small></td>
            <td class="num">${m.events}</td>
            <td><${StatusBadge} status=${BADGE[m.status]} text=${m.status} /></td>
            <td class="num">${m.attempts}</td>
            <td>${m.last_status ?? html`<span class="hint">none</span>`}${m.error ? html`<div class="hint">${m.error}</div>` : null}</td>
            <td>${m.status !== 'pending' ? '–' : paused ? 'after Resume' : m.next_attempt_at ? relative(m.next_attempt_at) : '–'}</td>
          </tr>`)}</tbody>
        </table></div>`
      : null}
  </section>`;
}
