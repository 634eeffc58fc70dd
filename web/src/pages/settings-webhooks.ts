// Settings › Webhooks: list, create/edit (URL, events, enabled, secret), the generated secret once, send test, delete.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api, type Page } from '../lib/api.js';
import { useAction, useResource } from '../lib/hooks.js';
import { useSession } from '../lib/session.js';
import { dateTime } from '../lib/format.js';
import type { Route } from '../lib/router.js';
import { Button, ConfirmButton, Empty, ErrorNote, StatusBadge } from '../components/ui.js';
import { CopyField, fieldProblem, NeedsScope, Pager } from './settings-fields.js';
import { EventPicker } from './settings-scopes.js';
import { DeliveryLog } from './settings-deliveries.js';

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  has_secret: boolean;
  secret_rotation_ends_at: string | null;
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
  secret?: string;
}

interface TestOutcome {
  delivered: boolean;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
  response_excerpt: string | null;
  delivery_id: string;
}

function WebhookForm({ hook, onSaved, onCancel }: { hook?: Webhook; onSaved: (w: Webhook) => void; onCancel: () => void }) {
  const [url, setUrl] = useState(hook?.url ?? 'http://');
  const [events, setEvents] = useState<string[]>(hook?.events ?? []);
  const [enabled, setEnabled] = useState(hook?.enabled ?? true);
  const [secret, setSecret] = useState('');
  const [bad, setBad] = useState<string | null>(null);
  const idp = hook ? `wh-edit-${hook.id}` : 'wh-new';
  const save = useAction(async (body: Record<string, unknown>) => {
    try {
      onSaved(hook ? await api.patch<Webhook>(`/v1/webhooks/${hook.id}`, body) : await api.post<Webhook>('/v1/webhooks', body));
    } catch (err) {
      setBad(fieldProblem(err, ['url', 'events', 'secret', 'enabled'])?.field ?? null);
      throw err;
    }
  });
  const submit = (e: Event) => {
    e.preventDefault();
    setBad(null);
    save.clearError();
    if (!/^https?:\/\/.+/i.test(url.trim())) return setBad('url');
    if (events.length === 0) return setBad('events');
    if (secret && secret.length < 16) return setBad('secret');
    const body: Record<string, unknown> = {};
    if (!hook || url.trim() !== hook.url) body.url = url.trim();
    if (!hook || events.join() !== hook.events.join()) body.events = events;
    if (!hook || enabled !== hook.enabled) body.enabled = enabled;
    if (secret) body.secret = secret;
    if (hook && Object.keys(body).length === 0) return onCancel();
    void save.run(body);
  };
  const err = (f: string, words: string) => (bad === f ? html`<small class="field-error" id=${`${idp}-${f}-error`}>${words}</small>` : null);
  return html`<form class="card webhook-form" aria-labelledby=${`${idp}-title`} onSubmit=${submit} novalidate>
    <h3 id=${`${idp}-title`}>${hook ? 'Edit webhook' : 'Add a webhook'}</h3>
    <div class=${`field${bad === 'url' ? ' invalid' : ''}`}>
      <label for=${`${idp}-url`}>Receiver URL</label>
      <input id=${`${idp}-url`} type="url" autocomplete="off" value=${url} aria-invalid=${bad === 'url' ? 'true' : undefined}
        aria-describedby=${`${idp}-url-hint${bad === 'url' ? ` ${idp}-url-error` : ''}`} onInput=${(e: Event) => setUrl((e.currentTarget as HTMLInputElement).value)} />
      <small class="hint" id=${`${idp}-url-hint`}>Where each event is POSTed, e.g. http://erp.lan:9000/printfarm.</small>
      ${err('url', 'Enter an http:// or https:// address without a user name or password, on a host the organization allows.')}
    </div>
    <${EventPicker} value=${events} onChange=${setEvents} invalid=${bad === 'events'} />
    ${err('events', 'Choose at least one event.')}
    <label class="check switch">
      <input type="checkbox" role="switch" checked=${enabled} onChange=${(e: Event) => setEnabled((e.currentTarget as HTMLInputElement).checked)} />
      <span>Enabled${hook?.disabled_reason ? html` <small class="hint">(turned off by the server: ${hook.disabled_reason}; enabling resumes it)</small>` : null}</span>
    </label>
    <div class=${`field${bad === 'secret' ? ' invalid' : ''}`}>
      <label for=${`${idp}-secret`}>${hook ? 'New secret (optional)' : 'Secret (optional)'}</label>
      <input id=${`${idp}-secret`} type="text" autocomplete="off" spellcheck=${false} value=${secret} aria-invalid=${bad === 'secret' ? 'true' : undefined}
        aria-describedby=${`${idp}-secret-hint`} onInput=${(e: Event) => setSecret((e.currentTarget as HTMLInputElement).value)} />
      <small class="hint" id=${`${idp}-secret-hint`}>${hook
        ? 'Leave empty to keep the current one. A new secret signs beside the old one for 24 hours, so the receiver can switch.'
        : 'The key of the X-Signature header, 16 to 256 characters. Leave empty and the server makes one and shows it once.'}</small>
      ${err('secret', 'A secret needs 16 to 256 characters.')}
    </div>
    <${ErrorNote} error=${save.error} onDismiss=${save.clearError} />
    <div class="row end">
      <${Button} onClick=${onCancel}>Cancel<//>
      <${Button} type="submit" kind="primary" busy=${save.busy}>${hook ? 'Save webhook' : 'Add webhook'}<//>
    </div>
  </form>`;
}

function TestResult({ outcome }: { outcome: TestOutcome }) {
  const took = outcome.duration_ms === null ? '' : ` in ${outcome.duration_ms} ms`;
  return outcome.delivered
    ? html`<p class="note success" role="status">Test delivered: the receiver answered ${outcome.status_code}${took}.</p>`
    : html`<p class="note error" role="alert">Test not delivered: ${outcome.status_code === null ? `the receiver could not be reached (${outcome.error ?? 'no answer'})` : `the receiver answered ${outcome.status_code}${outcome.error ? ` (${outcome.error})` : ''}`}${took}. Check that it runs and accepts POST requests at this URL, then send another test.</p>`;
}

function WebhookCard({ hook, open, onChanged, onDeleted }: { hook: Webhook; open: boolean; onChanged: (w: Webhook) => void; onDeleted: () => void }) {
  const [editing, setEditing] = useState(false);
  const [outcome, setOutcome] = useState<TestOutcome | null>(null);
  const [logVersion, setLogVersion] = useState(0);
  const test = useAction(async () => {
    setOutcome(await api.post<TestOutcome>(`/v1/webhooks/${hook.id}/test`));
    setLogVersion((v) => v + 1);
  });
  const remove = useAction(async () => {
    await api.del(`/v1/webhooks/${hook.id}`);
    onDeleted();
  });
  const state = !hook.enabled ? 'offline' : hook.failing_since ? 'error' : 'active';
  const stateText = !hook.enabled ? (hook.disabled_reason ? 'disabled by the server' : 'disabled') : hook.failing_since ? `failing since ${dateTime(hook.failing_since)}` : 'enabled';
  return html`<li class="card webhook" data-id=${hook.id}>
    <div class="row between wrap">
      <h3 class="webhook-url"><code>${hook.url}</code></h3>
      <${StatusBadge} status=${state} text=${stateText} />
    </div>
    <p class="webhook-events">Events: ${hook.events.map((e) => html`<code>${e}</code> `)}</p>
    ${hook.disabled_reason ? html`<p class="hint">Why: ${hook.disabled_reason}</p>` : null}
    ${hook.secret_rotation_ends_at ? html`<p class="hint">The previous secret also signs until ${dateTime(hook.secret_rotation_ends_at)}.</p>` : null}
    ${editing
      ? html`<${WebhookForm} hook=${hook} onCancel=${() => setEditing(false)} onSaved=${(w: Webhook) => { setEditing(false); onChanged(w); }} />`
      : html`<div class="row wrap">
          <${Button} kind="primary" busy=${test.busy} onClick=${() => test.run()}>Send test<//>
          <a class="btn secondary" href=${open ? '#/settings/webhooks' : `#/settings/webhooks/${hook.id}`} aria-expanded=${open ? 'true' : 'false'}>${open ? 'Hide deliveries' : 'Deliveries'}</a>
          <${Button} onClick=${() => setEditing(true)}>Edit<//>
          <${ConfirmButton} id=${`delete-${hook.id}`} title="Delete this webhook?" confirmText="Delete" busy=${remove.busy}
            message=${`${hook.url} gets no more events, and its delivery history is deleted too.`} onConfirm=${() => remove.run()}>Delete<//>
        </div>`}
    <${ErrorNote} error=${test.error ?? remove.error} />
    ${outcome ? html`<${TestResult} outcome=${outcome} />` : null}
    ${open ? html`<${DeliveryLog} key=${`${hook.id}-${logVersion}`} hook=${hook} />` : null}
  </li>`;
}

export function WebhooksSettings({ route }: { route: Route }) {
  const { can } = useSession();
  const allowed = can('webhooks:write');
  const [page, setPage] = useState(1);
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<Webhook | null>(null);
  const hooks = useResource(() => (allowed ? api.get<Page<Webhook>>('/v1/webhooks', { page, per_page: 50, sort: 'url' }) : Promise.resolve(null)), [page, allowed]);
  if (!allowed) return html`<${NeedsScope} scope="webhooks:write" what="Managing webhooks" />`;
  const openId = route.parts[2] ?? null;
  const list = hooks.data?.data ?? [];
  return html`<div class="webhooks-settings">
    <p class="hint">A webhook POSTs each chosen event to a program you run, signed with its secret, and retries for about a day until it answers 2xx.</p>
    ${secret?.secret
      ? html`<div class="card note success" role="status">
          <p><strong>Webhook added.</strong> Its signing secret:</p>
          <${CopyField} id="webhook-secret" label="Signing secret" value=${secret.secret}
            note="Copy it into the receiver now: you will not see it again. Check each delivery's X-Signature with it." />
          <${Button} kind="link" onClick=${() => setSecret(null)}>I have copied it<//>
        </div>`
      : null}
    ${adding
      ? html`<${WebhookForm} onCancel=${() => setAdding(false)} onSaved=${(w: Webhook) => { setAdding(false); setSecret(w.secret ? w : null); void hooks.reload(); }} />`
      : html`<${Button} kind="primary" onClick=${() => { setAdding(true); setSecret(null); }}>Add webhook<//>`}
    <${ErrorNote} error=${hooks.error} />
    ${hooks.data && list.length === 0 ? html`<${Empty}>No webhooks yet. Add one to send job, printer and material events to another program.<//>` : null}
    <ul class="webhooks">
      ${list.map((w) => html`<${WebhookCard} key=${w.id} hook=${w} open=${w.id === openId}
        onChanged=${(n: Webhook) => hooks.set((prev) => prev ? { ...prev, data: prev.data.map((x) => (x.id === n.id ? n : x)) } : prev as never)}
        onDeleted=${() => void hooks.reload()} />`)}
    </ul>
    <${Pager} page=${page} totalPages=${hooks.data?.pagination.total_pages ?? 1} onPage=${setPage} label="Webhook pages" />
  </div>`;
}
