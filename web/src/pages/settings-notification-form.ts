// Settings › Notifications: the form that adds a channel: its kind and that kind's fields, the events it gets (its
// rule) and optional quiet hours.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction } from '../lib/hooks.js';
import { Button, ErrorNote } from '../components/ui.js';
import { EventPicker } from './settings-scopes.js';
import { KINDS, kindOf, toApi, type Kind } from './notification-kinds.js';
import type { Channel } from './settings-notifications.js';

export function ChannelForm({ onSaved, onCancel }: { onSaved: (c: Channel) => void; onCancel: () => void }) {
  const [kind, setKind] = useState<Kind>('ntfy');
  const [name, setName] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [events, setEvents] = useState<string[]>(['job.failed', 'printer.offline', 'printer.error', 'material.empty']);
  const [quiet, setQuiet] = useState(false);
  const [start, setStart] = useState('22:00');
  const [end, setEnd] = useState('07:00');
  const [bad, setBad] = useState<string | null>(null);
  const save = useAction(async (body: Record<string, unknown>) => onSaved(await api.post<Channel>('/v1/notifications/channels', body)));
  const fields = kindOf(kind).fields;
  const submit = (e: Event) => {
    e.preventDefault();
    setBad(null);
    save.clearError();
    if (!name.trim()) return setBad('name');
    const missing = fields.find((f) => f.required && !(values[f.key] ?? '').trim());
    if (missing) return setBad(missing.key);
    if (events.length === 0) return setBad('events');
    const { settings, secrets } = toApi(kind, values);
    void save.run({ kind, name: name.trim(), events, settings, secrets, quiet_hours: quiet ? { start, end } : null });
  };
  const set = (key: string) => (e: Event) => {
    setValues({ ...values, [key]: (e.currentTarget as HTMLInputElement).value });
    if (bad === key) setBad(null);
  };
  const invalid = (key: string) => (bad === key ? 'true' : undefined);
  return html`<form class="card channel-form" aria-labelledby="nch-new-title" onSubmit=${submit} novalidate>
    <h3 id="nch-new-title">Add a channel</h3>
    <div class="field">
      <label for="nch-kind">Kind</label>
      <select id="nch-kind" value=${kind} onChange=${(e: Event) => { setKind((e.currentTarget as HTMLSelectElement).value as Kind); setValues({}); }}>
        ${KINDS.map((k) => html`<option value=${k.kind}>${k.label}</option>`)}
      </select>
    </div>
    <div class=${`field${bad === 'name' ? ' invalid' : ''}`}>
      <label for="nch-name">Name</label>
      <input id="nch-name" type="text" value=${name} aria-invalid=${invalid('name')} aria-describedby="nch-name-hint"
        onInput=${(e: Event) => { setName((e.currentTarget as HTMLInputElement).value); if (bad === 'name') setBad(null); }} />
      <small class="hint" id="nch-name-hint">${bad === 'name' ? 'Give the channel a name, e.g. "My phone".' : 'How the channel is listed, e.g. "My phone".'}</small>
    </div>
    ${fields.map((f) => html`<div class=${`field${bad === f.key ? ' invalid' : ''}`} key=${`${kind}-${f.key}`}>
      <label for=${`nch-${f.key}`}>${f.label}${f.required ? '' : ' (optional)'}</label>
      ${f.options
        ? html`<select id=${`nch-${f.key}`} value=${values[f.key] ?? f.options[0]} aria-describedby=${`nch-${f.key}-hint`} onChange=${set(f.key)}>
            ${f.options.map((o) => html`<option value=${o}>${o}</option>`)}
          </select>`
        : html`<input id=${`nch-${f.key}`} type=${f.type ?? 'text'} autocomplete="off" spellcheck=${false} value=${values[f.key] ?? ''}
            aria-invalid=${invalid(f.key)} aria-describedby=${`nch-${f.key}-hint`} onInput=${set(f.key)} />`}
      <small class="hint" id=${`nch-${f.key}-hint`}>${bad === f.key ? `${f.label} is needed. ` : ''}${f.hint}</small>
    </div>`)}
    <${EventPicker} id="channel-events" value=${events} onChange=${setEvents} invalid=${bad === 'events'} />
    ${bad === 'events' ? html`<small class="field-error">Choose at least one event.</small>` : null}
    <label class="check switch">
      <input type="checkbox" role="switch" checked=${quiet} onChange=${(e: Event) => setQuiet((e.currentTarget as HTMLInputElement).checked)} />
      <span>Quiet hours <small class="hint">urgent events still go; the rest comes as one digest when they end</small></span>
    </label>
    ${quiet
      ? html`<div class="row wrap">
          <div class="field"><label for="nch-quiet-start">From</label><input id="nch-quiet-start" type="time" value=${start} onInput=${(e: Event) => setStart((e.currentTarget as HTMLInputElement).value)} /></div>
          <div class="field"><label for="nch-quiet-end">Until</label><input id="nch-quiet-end" type="time" value=${end} onInput=${(e: Event) => setEnd((e.currentTarget as HTMLInputElement).value)} /></div>
        </div>`
      : null}
    <${ErrorNote} error=${save.error} onDismiss=${save.clearError} />
    <div class="row end">
      <${Button} onClick=${onCancel}>Cancel<//>
      <${Button} type="submit" kind="primary" busy=${save.busy}>Add channel<//>
    </div>
  </form>`;
}
