// Settings › Notifications: the dashboard address messages link to, the channels with their rule and status (paused
// with the reason, Resume), Send test, enable/disable, delete, and each channel's delivery log.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction, useResource } from '../lib/hooks.js';
import { useSession } from '../lib/session.js';
import type { Route } from '../lib/router.js';
import { Button, ConfirmButton, Empty, ErrorNote, StatusBadge } from '../components/ui.js';
import { NeedsScope } from './settings-fields.js';
import { ChannelForm } from './settings-notification-form.js';
import { NotificationLog } from './settings-notification-log.js';
import { kindOf } from './notification-kinds.js';
import '../styles/settings-notifications.css';

export interface Channel {
  id: string;
  kind: 'email' | 'ntfy' | 'discord' | 'slack' | 'telegram' | 'pushover';
  name: string;
  events: string[];
  settings: Record<string, unknown>;
  secrets_set: string[];
  quiet_hours: { start: string; end: string } | null;
  enabled: boolean;
  status: 'ok' | 'failing' | 'paused' | 'disabled';
  paused_reason: string | null;
  failures_in_a_row: number;
}

interface TestOutcome {
  ok: boolean;
  status: string | null;
  error: string | null;
}

const BADGE: Record<Channel['status'], string> = { ok: 'active', failing: 'error', paused: 'paused', disabled: 'offline' };
const STATUS_TEXT = (c: Channel): string =>
  c.status === 'failing' ? `failing (${c.failures_in_a_row} in a row, retrying)` : c.status === 'ok' ? 'working' : c.status;

function DashboardAddress() {
  const settings = useResource(() => api.get<{ dashboard_url: string | null }>('/v1/notifications/settings'), []);
  const [text, setText] = useState<string | null>(null);
  const save = useAction(async () => {
    const value = (text ?? '').trim();
    settings.set(await api.put<{ dashboard_url: string | null }>('/v1/notifications/settings', { dashboard_url: value === '' ? null : value }));
    setText(null);
  });
  const value = text ?? settings.data?.dashboard_url ?? '';
  return html`<form class="card dashboard-address" onSubmit=${(e: Event) => { e.preventDefault(); void save.run(); }}>
    <div class="field">
      <label for="notify-dashboard-url">Dashboard address</label>
      <input id="notify-dashboard-url" type="url" value=${value} placeholder="https://farm.example.com" aria-describedby="notify-dashboard-url-hint"
        onInput=${(e: Event) => setText((e.currentTarget as HTMLInputElement).value)} />
      <small class="hint" id="notify-dashboard-url-hint">Where people open this dashboard: messages link to its pages. Empty: no links.</small>
    </div>
    <${ErrorNote} error=${save.error ?? settings.error} onDismiss=${save.clearError} />
    <div class="row end"><${Button} type="submit" busy=${save.busy}>Save address<//></div>
  </form>`;
}

function ChannelCard({ channel, open, onChanged, onDeleted }: { channel: Channel; open: boolean; onChanged: (c: Channel) => void; onDeleted: () => void }) {
  const [outcome, setOutcome] = useState<TestOutcome | null>(null);
  const [version, setVersion] = useState(0);
  const test = useAction(async () => {
    setOutcome(await api.post<TestOutcome>(`/v1/notifications/channels/${channel.id}/test`));
    setVersion((v) => v + 1);
  });
  const patch = useAction(async (body: Record<string, unknown>) => onChanged(await api.patch<Channel>(`/v1/notifications/channels/${channel.id}`, body)));
  const remove = useAction(async () => {
    await api.del(`/v1/notifications/channels/${channel.id}`);
    onDeleted();
  });
  const base = `#/settings/notifications`;
  return html`<li class="card channel" data-id=${channel.id}>
    <div class="row between wrap">
      <h3 class="channel-name">${channel.name} <small class="hint">${kindOf(channel.kind).label}</small></h3>
      <${StatusBadge} status=${BADGE[channel.status]} text=${STATUS_TEXT(channel)} />
    </div>
    ${channel.paused_reason ? html`<p class="note warning" role="status">Paused: ${channel.paused_reason}. Its messages wait; fix the cause, then resume.</p>` : null}
    <p class="channel-events">Events: ${channel.events.map((e) => html`<code>${e}</code> `)}</p>
    ${channel.quiet_hours ? html`<p class="hint">Quiet hours ${channel.quiet_hours.start}–${channel.quiet_hours.end}: urgent events still go, the rest comes as a digest.</p>` : null}
    ${channel.secrets_set.length > 0 ? html`<p class="hint">Secrets stored: ${channel.secrets_set.join(', ')} (never shown).</p>` : null}
    <div class="row wrap">
      <${Button} kind="primary" busy=${test.busy} onClick=${() => test.run()}>Send test<//>
      ${channel.status === 'paused' ? html`<${Button} busy=${patch.busy} onClick=${() => patch.run({ paused: false })}>Resume<//>` : null}
      <${Button} busy=${patch.busy} onClick=${() => patch.run({ enabled: !channel.enabled })}>${channel.enabled ? 'Disable' : 'Enable'}<//>
      <a class="btn secondary" href=${open ? base : `${base}/${channel.id}`} aria-expanded=${open ? 'true' : 'false'}>${open ? 'Hide log' : 'Delivery log'}</a>
      <${ConfirmButton} id=${`delete-${channel.id}`} title="Delete this channel?" confirmText="Delete" busy=${remove.busy}
        message=${`${channel.name} gets no more messages; its waiting messages and its log are deleted too.`} onConfirm=${() => remove.run()}>Delete<//>
    </div>
    <${ErrorNote} error=${test.error ?? patch.error ?? remove.error} />
    ${outcome
      ? outcome.ok
        ? html`<p class="note success" role="status">Test sent: the service answered ${outcome.status}.</p>`
        : html`<p class="note error" role="alert">Test not sent: ${outcome.error ?? outcome.status ?? 'no answer'}. Check the settings, then send another test.</p>`
      : null}
    ${open ? html`<${NotificationLog} key=${channel.id} channelId=${channel.id} name=${channel.name} version=${version} paused=${channel.status === 'paused'} />` : null}
  </li>`;
}

export function NotificationsSettings({ route }: { route: Route }) {
  const { can } = useSession();
  const allowed = can('admin:*');
  const [adding, setAdding] = useState(false);
  const channels = useResource(() => (allowed ? api.get<{ data: Channel[] }>('/v1/notifications/channels') : Promise.resolve(null)), [allowed]);
  if (!allowed) return html`<${NeedsScope} scope="admin:*" what="Managing notifications" />`;
  const list = channels.data?.data ?? [];
  const openId = route.parts[2] ?? null;
  return html`<div class="notifications-settings">
    <p class="hint">Channels tell people when something needs them: a failed print, a printer offline, a spool running out.</p>
    <${DashboardAddress} />
    ${adding
      ? html`<${ChannelForm} onCancel=${() => setAdding(false)} onSaved=${() => { setAdding(false); void channels.reload(); }} />`
      : html`<${Button} kind="primary" onClick=${() => setAdding(true)}>Add channel<//>`}
    <${ErrorNote} error=${channels.error} />
    ${channels.data && list.length === 0 ? html`<${Empty}>No channels yet. Add one to hear about failed prints on your phone or by email.<//>` : null}
    <ul class="channels">
      ${list.map((c) => html`<${ChannelCard} key=${c.id} channel=${c} open=${c.id === openId}
        onChanged=${(n: Channel) => channels.set((prev) => (prev ? { data: prev.data.map((x) => (x.id === n.id ? n : x)) } : null))}
        onDeleted=${() => void channels.reload()} />`)}
    </ul>
  </div>`;
}
