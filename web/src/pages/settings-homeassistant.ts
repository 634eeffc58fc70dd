// Settings › Home Assistant: the MQTT broker the farm publishes to (URL, password kept sealed, CA), its connection now.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction, useResource } from '../lib/hooks.js';
import { useSession } from '../lib/session.js';
import { dateTime } from '../lib/format.js';
import { Button, ErrorNote, Notice, StatusBadge } from '../components/ui.js';
import { fieldProblem, NeedsScope } from './settings-fields.js';

/** GET /v1/homeassistant. */
export interface HomeAssistantStatus {
  enabled: boolean;
  broker: string | null;
  connected: boolean;
  since: string | null;
  last_error: string | null;
  failed_attempts: number;
  published: number;
  commands_refused: number;
  source: 'flag' | 'settings' | null;
  settings: { url: string | null; has_password: boolean; has_ca: boolean };
}

const FIELDS = ['url', 'password', 'ca_pem'] as const;

function Connection({ s }: { s: HomeAssistantStatus }) {
  if (!s.enabled) return html`<p class="ha-connection">Not publishing: no broker is set.</p>`;
  return html`<dl class="kv ha-connection">
    <dt>Broker</dt><dd><code>${s.broker}</code>${s.source === 'flag' ? ' (from the --mqtt flag, which wins over this page)' : ''}</dd>
    <dt>Connection</dt><dd>${s.connected ? html`<${StatusBadge} status="online" text="connected" />` : html`<${StatusBadge} status="offline" text="not connected" />`}${s.since ? ` since ${dateTime(s.since)}` : ''}</dd>
    ${s.last_error ? html`<dt>Last error</dt><dd>${s.last_error}${s.failed_attempts > 0 ? ` (${s.failed_attempts} attempts; tried again every few seconds, up to every 30 s)` : ''}</dd>` : null}
    <dt>Messages sent</dt><dd>${s.published}</dd>
    <dt>Commands refused</dt><dd>${s.commands_refused}</dd>
  </dl>`;
}

export function HomeAssistantSettings() {
  const { can } = useSession();
  const status = useResource(() => api.get<HomeAssistantStatus>('/v1/homeassistant'), []);
  if (status.error && !status.data) return html`<${ErrorNote} error=${status.error} />`;
  if (!status.data) return html`<p aria-busy="true">Loading…</p>`;
  return html`<div class="ha-settings">
    <p>The farm shows up in Home Assistant through its MQTT broker: each printer as a device with its sensors and buttons. See docs/home-assistant.md for the entities and topics.</p>
    <${Connection} s=${status.data} />
    <${Button} onClick=${() => status.reload()} busy=${status.loading}>Refresh</${Button}>
    ${can('admin:*')
      ? html`<${BrokerForm} s=${status.data} onSaved=${(s: HomeAssistantStatus) => status.set(s)} />`
      : html`<${NeedsScope} scope="admin:*" what="Changing the broker" />`}
  </div>`;
}

function BrokerForm({ s, onSaved }: { s: HomeAssistantStatus; onSaved: (s: HomeAssistantStatus) => void }) {
  const [url, setUrl] = useState(s.settings.url ?? '');
  const [password, setPassword] = useState('');
  const [ca, setCa] = useState('');
  const [bad, setBad] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const save = useAction(async (body: Record<string, unknown>, words: string) => {
    try {
      const next = await api.put<HomeAssistantStatus>('/v1/homeassistant/settings', body);
      onSaved(next);
      setPassword('');
      setCa('');
      setUrl(next.settings.url ?? '');
      setSaved(words);
    } catch (err) {
      setBad(fieldProblem(err, FIELDS)?.field ?? null);
      throw err;
    }
  });
  const submit = (e: Event) => {
    e.preventDefault();
    setBad(null);
    setSaved(null);
    save.clearError();
    if (!/^mqtts?:\/\/.+/i.test(url.trim())) {
      setBad('url');
      document.getElementById('ha-url')?.focus();
      return;
    }
    const body: Record<string, unknown> = { url: url.trim() };
    if (password !== '') body.password = password;
    if (ca.trim() !== '') body.ca_pem = ca;
    void save.run(body, 'Saved. The farm connects to the broker now.');
  };
  const invalid = (k: string) => (bad === k ? 'true' : undefined);
  return html`<form class="ha-form" onSubmit=${submit} novalidate>
    <fieldset>
      <legend>Broker</legend>
      <div class=${`field${bad === 'url' ? ' invalid' : ''}`}>
        <label for="ha-url">Broker URL</label>
        <input id="ha-url" type="text" value=${url} onInput=${(e: Event) => setUrl((e.currentTarget as HTMLInputElement).value)}
          placeholder="mqtt://user@192.168.1.5:1883" autocomplete="off" spellcheck=${false} aria-invalid=${invalid('url')} aria-describedby="ha-url-hint" />
        <small id="ha-url-hint" class="hint">mqtt://user@host[:port], or mqtts://… for TLS (port 8883 unless given).</small>
        ${bad === 'url' ? html`<small class="field-error">Expected mqtt://user@host[:port] or mqtts://user@host[:port].</small>` : null}
      </div>
      <div class="field">
        <label for="ha-password">Password</label>
        <input id="ha-password" type="password" value=${password} onInput=${(e: Event) => setPassword((e.currentTarget as HTMLInputElement).value)}
          autocomplete="new-password" aria-describedby="ha-password-hint" />
        <small id="ha-password-hint" class="hint">${s.settings.has_password ? 'A password is stored (it is never shown). Leave empty to keep it.' : 'The broker user\'s password; stored sealed, never shown again.'}</small>
      </div>
      <div class=${`field${bad === 'ca_pem' ? ' invalid' : ''}`}>
        <label for="ha-ca">CA certificate (PEM, optional)</label>
        <textarea id="ha-ca" rows="4" value=${ca} onInput=${(e: Event) => setCa((e.currentTarget as HTMLTextAreaElement).value)}
          spellcheck=${false} aria-invalid=${invalid('ca_pem')} aria-describedby="ha-ca-hint"></textarea>
        <small id="ha-ca-hint" class="hint">${s.settings.has_ca ? 'A CA certificate is stored. Paste another to replace it.' : 'Only for an mqtts broker whose certificate your own CA signed.'}</small>
      </div>
    </fieldset>
    <div class="row">
      <${Button} type="submit" kind="primary" busy=${save.busy}>Save</${Button}>
      ${s.settings.url ? html`<${Button} kind="danger" busy=${save.busy} onClick=${() => void save.run({ url: null }, 'Publishing turned off; the broker was forgotten.')}>Turn off</${Button}>` : null}
    </div>
    <${ErrorNote} error=${save.error} onDismiss=${save.clearError} />
    ${saved ? html`<${Notice} kind="success">${saved}</${Notice}>` : null}
  </form>`;
}
