// Settings › Users: who may sign in (GET /v1/users) and invitations (POST /v1/users/invite) with the link to hand over.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api, type Page } from '../lib/api.js';
import { useAction, useResource } from '../lib/hooks.js';
import { useSession } from '../lib/session.js';
import { dateTime } from '../lib/format.js';
import { Button, Empty, ErrorNote, StatusBadge } from '../components/ui.js';
import { CopyField, fieldProblem, NeedsScope, Pager } from './settings-fields.js';

interface User {
  id: string;
  email: string;
  name: string;
  role: 'owner' | 'admin' | 'operator' | 'viewer';
  status: 'invited' | 'active';
  created_at: string;
}

interface Invited extends User {
  invite_token: string;
}

const ROLES = [
  { value: 'viewer', label: 'Viewer: sees everything, changes nothing' },
  { value: 'operator', label: 'Operator: runs printers, jobs and materials' },
  { value: 'admin', label: 'Admin: everything, including users, keys and settings' },
  { value: 'owner', label: 'Owner: like admin' },
];

/** The page an invited person opens to set a password. */
export const inviteLink = (token: string): string => `${location.origin}/#/accept-invite?token=${encodeURIComponent(token)}`;

function InviteForm({ onInvited }: { onInvited: (u: Invited) => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState('operator');
  const [bad, setBad] = useState<string | null>(null);
  const invite = useAction(async () => {
    try {
      const body: Record<string, string> = { email: email.trim(), role };
      if (name.trim()) body.name = name.trim();
      const user = await api.post<Invited>('/v1/users/invite', body);
      onInvited(user);
      setEmail('');
      setName('');
    } catch (err) {
      setBad(fieldProblem(err, ['email', 'name', 'role'])?.field ?? null);
      throw err;
    }
  });
  return html`<form class="card invite-form" aria-labelledby="invite-title" onSubmit=${(e: Event) => { e.preventDefault(); setBad(null); void invite.run(); }}>
    <h3 id="invite-title">Invite someone</h3>
    <div class="row wrap">
      <div class=${`field${bad === 'email' ? ' invalid' : ''}`}>
        <label for="invite-email">Email</label>
        <input id="invite-email" type="email" required autocomplete="off" value=${email} aria-invalid=${bad === 'email' ? 'true' : undefined} onInput=${(e: Event) => setEmail((e.currentTarget as HTMLInputElement).value)} />
      </div>
      <div class=${`field${bad === 'name' ? ' invalid' : ''}`}>
        <label for="invite-name">Name (optional)</label>
        <input id="invite-name" type="text" autocomplete="off" value=${name} aria-invalid=${bad === 'name' ? 'true' : undefined} onInput=${(e: Event) => setName((e.currentTarget as HTMLInputElement).value)} />
      </div>
      <div class="field">
        <label for="invite-role">Role</label>
        <select id="invite-role" value=${role} onChange=${(e: Event) => setRole((e.currentTarget as HTMLSelectElement).value)}>
          ${ROLES.map((r) => html`<option value=${r.value}>${r.label}</option>`)}
        </select>
      </div>
    </div>
    <${ErrorNote} error=${invite.error} onDismiss=${invite.clearError} />
    <div class="row end"><${Button} type="submit" kind="primary" busy=${invite.busy}>Create invitation<//></div>
  </form>`;
}

export function UsersSettings() {
  const { can } = useSession();
  const [page, setPage] = useState(1);
  const [invited, setInvited] = useState<Invited | null>(null);
  const admin = can('admin:*');
  const users = useResource(() => (admin ? api.get<Page<User>>('/v1/users', { page, per_page: 50, sort: 'name' }) : Promise.resolve(null)), [page, admin]);
  if (!admin) return html`<${NeedsScope} scope="admin:*" what="Seeing and inviting users" />`;
  const list = users.data?.data ?? [];
  return html`<div class="users-settings">
    <${InviteForm} onInvited=${(u: Invited) => { setInvited(u); void users.reload(); }} />
    ${invited
      ? html`<div class="card note success invite-result" role="status">
          <p><strong>${invited.email}</strong> is invited as ${invited.role}. Send them this link; it works once, for 7 days.</p>
          <${CopyField} id="invite-link" label="Invitation link" value=${inviteLink(invited.invite_token)}
            note="Copy it now: it is shown only once, the server keeps only a hash of it." />
          <${Button} kind="link" onClick=${() => setInvited(null)}>Done<//>
        </div>`
      : null}
    <${ErrorNote} error=${users.error} />
    ${users.data && list.length === 0 ? html`<${Empty}>No users yet.<//>` : null}
    ${list.length > 0
      ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Users"><table class="data users">
          <caption class="visually-hidden">Users</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Since</th></tr></thead>
          <tbody>${list.map((u) => html`<tr key=${u.id}>
            <th scope="row">${u.name}</th><td>${u.email}</td><td>${u.role}</td>
            <td><${StatusBadge} status=${u.status === 'active' ? 'active' : 'queued'} text=${u.status} /></td>
            <td>${dateTime(u.created_at)}</td>
          </tr>`)}</tbody>
        </table></div>`
      : null}
    <${Pager} page=${page} totalPages=${users.data?.pagination.total_pages ?? 1} onPage=${setPage} label="User pages" />
  </div>`;
}
