// Settings › API keys: list, a slicer's key in one click, create with a scope picker, the new key shown once with Copy, roll (24 h overlap), revoke.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction, useResource } from '../lib/hooks.js';
import { useSession } from '../lib/session.js';
import { dateTime, relative } from '../lib/format.js';
import { Button, ConfirmButton, Empty, ErrorNote, StatusBadge } from '../components/ui.js';
import { CopyField, fieldProblem, NeedsScope, Pager } from './settings-fields.js';
import { ScopePicker } from './settings-scopes.js';
import { SlicerConnect } from './settings-slicer.js';

interface ApiKey {
  id: string;
  name: string;
  scopes: string[];
  prefix: string;
  environment: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  status: 'active' | 'expiring' | 'expired' | 'revoked';
}

interface NewKey extends ApiKey {
  key: string;
}

interface KeyList {
  keys: ApiKey[];
  pagination: { page: number; per_page: number; total: number; total_pages: number };
}

const STATUS_BADGE: Record<ApiKey['status'], string> = { active: 'active', expiring: 'paused', expired: 'offline', revoked: 'cancelled' };

/** A key value on screen once: after create or roll. */
function ShownOnce({ shown, onDone }: { shown: { key: NewKey; rolledFrom: ApiKey | null }; onDone: () => void }) {
  const { key, rolledFrom } = shown;
  return html`<div class="card note success key-once" role="status">
    <p><strong>${rolledFrom ? `New key for “${key.name}”` : `Key “${key.name}” created`}.</strong>
      ${rolledFrom ? ` The old key (${rolledFrom.prefix}…) keeps working for 24 hours${key.created_at ? `, until ${dateTime(new Date(Date.parse(key.created_at) + 86400_000).toISOString())}` : ''}, then it is refused.` : ''}</p>
    <${CopyField} id="new-key" label="API key" value=${key.key}
      note="Copy it now and store it somewhere safe: you will not see it again. The server keeps only a hash of it." />
    <${Button} kind="link" onClick=${onDone}>I have copied it<//>
  </div>`;
}

function CreateKey({ onCreated }: { onCreated: (k: NewKey) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [bad, setBad] = useState<string | null>(null);
  const create = useAction(async () => {
    try {
      onCreated(await api.post<NewKey>('/v1/api-keys', { name: name.trim(), scopes }));
      setName('');
      setScopes([]);
    } catch (err) {
      setBad(fieldProblem(err, ['name', 'scopes'])?.field ?? null);
      throw err;
    }
  });
  const submit = (e: Event) => {
    e.preventDefault();
    setBad(null);
    create.clearError();
    if (!name.trim()) return setBad('name');
    if (scopes.length === 0) return setBad('scopes');
    void create.run();
  };
  return html`<form class="card key-form" aria-labelledby="key-form-title" onSubmit=${submit} novalidate>
    <h3 id="key-form-title">Create a key</h3>
    <div class=${`field${bad === 'name' ? ' invalid' : ''}`}>
      <label for="key-name">What is it for?</label>
      <input id="key-name" type="text" autocomplete="off" maxlength="100" placeholder="backup script" value=${name}
        aria-invalid=${bad === 'name' ? 'true' : undefined} aria-describedby=${bad === 'name' ? 'key-name-error' : undefined}
        onInput=${(e: Event) => setName((e.currentTarget as HTMLInputElement).value)} />
      ${bad === 'name' ? html`<small id="key-name-error" class="field-error">Give the key a name of 1 to 100 characters, so you know later what uses it.</small>` : null}
    </div>
    <${ScopePicker} value=${scopes} onChange=${setScopes} invalid=${bad === 'scopes'} />
    ${bad === 'scopes' ? html`<p class="field-error" id="scopes-error">Choose at least one permission.</p>` : null}
    <${ErrorNote} error=${create.error} onDismiss=${create.clearError} />
    <div class="row end"><${Button} type="submit" kind="primary" busy=${create.busy}>Create key<//></div>
  </form>`;
}

function KeyRow({ k, own, onRolled, onChanged }: { k: ApiKey; own: boolean; onRolled: (n: NewKey, old: ApiKey) => void; onChanged: () => void }) {
  const roll = useAction(async () => onRolled(await api.post<NewKey>(`/v1/api-keys/${k.id}/roll`), k));
  const revoke = useAction(async () => {
    await api.del(`/v1/api-keys/${k.id}`);
    onChanged();
  });
  const live = k.status === 'active' || k.status === 'expiring';
  return html`<tr data-key=${k.id}>
    <th scope="row">${k.name}${own ? html` <span class="hint">(this session)</span>` : null}</th>
    <td><code>${k.prefix}…</code></td>
    <td class="scopes">${k.scopes.map((s) => html`<code>${s}</code> `)}</td>
    <td><${StatusBadge} status=${STATUS_BADGE[k.status]} text=${k.status === 'expiring' && k.expires_at ? `expiring ${relative(k.expires_at)}` : k.status} /></td>
    <td>${k.last_used_at ? relative(k.last_used_at) : 'never'}</td>
    <td>${dateTime(k.created_at)}</td>
    <td class="actions">
      ${k.status === 'active'
        ? html`<${ConfirmButton} id=${`roll-${k.id}`} kind="secondary" title=${`Roll “${k.name}”?`} confirmText="Roll key" busy=${roll.busy}
            message="A new key with the same name and permissions is made and shown once. The old key keeps working for 24 hours, so you can swap it where it is used; then it is refused."
            onConfirm=${() => roll.run()}>Roll<//>`
        : null}
      ${live
        ? html`<${ConfirmButton} id=${`revoke-${k.id}`} title=${`Revoke “${k.name}”?`} confirmText="Revoke key" busy=${revoke.busy}
            message=${`Every request with this key is refused from now on${own ? ', including this session (you will be signed out)' : ''}. This cannot be undone.`}
            onConfirm=${() => revoke.run()}>Revoke<//>`
        : null}
      <${ErrorNote} error=${roll.error ?? revoke.error} />
    </td>
  </tr>`;
}

export function KeysSettings() {
  const { can, session } = useSession();
  const admin = can('admin:*');
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [shown, setShown] = useState<{ key: NewKey; rolledFrom: ApiKey | null } | null>(null);
  const keys = useResource(() => (admin ? api.get<KeyList>('/v1/api-keys', { page, per_page: 50, status }) : Promise.resolve(null)), [page, status, admin]);
  if (!admin) return html`<${NeedsScope} scope="admin:*" what="Managing API keys" />`;
  const list = keys.data?.keys ?? [];
  return html`<div class="keys-settings">
    <p class="hint">Keys let scripts and other programs use the <code>/v1</code> API. Give each program its own key with only the permissions it needs.</p>
    ${shown ? html`<${ShownOnce} shown=${shown} onDone=${() => setShown(null)} />` : null}
    <${SlicerConnect} onMade=${() => void keys.reload()} />
    <${CreateKey} onCreated=${(k: NewKey) => { setShown({ key: k, rolledFrom: null }); void keys.reload(); }} />
    <div class="row wrap">
      <div class="field"><label for="key-status">Show</label>
        <select id="key-status" value=${status} onChange=${(e: Event) => { setStatus((e.currentTarget as HTMLSelectElement).value); setPage(1); }}>
          <option value="">All keys</option><option value="active">Active</option><option value="expiring">Expiring (rolled)</option>
          <option value="expired">Expired</option><option value="revoked">Revoked</option>
        </select>
      </div>
    </div>
    <${ErrorNote} error=${keys.error} />
    ${keys.data && list.length === 0 ? html`<${Empty}>No keys here.<//>` : null}
    ${list.length > 0
      ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="API keys"><table class="data keys">
          <caption class="visually-hidden">API keys</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Starts with</th><th scope="col">Permissions</th><th scope="col">Status</th><th scope="col">Last used</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>${list.map((k) => html`<${KeyRow} key=${k.id} k=${k} own=${session.key?.id === k.id}
            onRolled=${(n: NewKey, old: ApiKey) => { setShown({ key: n, rolledFrom: old }); void keys.reload(); }} onChanged=${() => void keys.reload()} />`)}</tbody>
        </table></div>`
      : null}
    <${Pager} page=${page} totalPages=${keys.data?.pagination.total_pages ?? 1} onPage=${setPage} label="Key pages" />
  </div>`;
}
