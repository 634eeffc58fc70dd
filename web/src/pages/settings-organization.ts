// Settings › Organization: GET/PATCH /v1/organization; sends only what changed, keeps the input on failure, names the bad field.
import { useMemo, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction, useResource } from '../lib/hooks.js';
import { useSession } from '../lib/session.js';
import { Button, ErrorNote, Notice } from '../components/ui.js';
import { fieldProblem, NeedsScope, numberOrNull, numberText } from './settings-fields.js';

export interface Organization {
  id: string;
  name: string;
  plan: 'free' | 'pro' | 'enterprise';
  rate_limit_per_hour: number;
  currency: string;
  hourly_rate: number;
  energy_cost_per_kwh: number;
  timezone: string;
  auto_start: boolean;
  power_budget_watts: number | null;
  webhook_allowed_hosts: string[];
  file_url_hosts: string[];
  /** Being added with browser sessions: absent on servers without them. */
  session_lifetime_hours?: number;
  session_idle_minutes?: number;
  file_retention_days: number | null;
  file_store_max_gb: number | null;
  storage_reserve_mb: number | null;
  created_at: string;
  updated_at: string;
  warnings?: string[];
}

type Form = {
  name: string; plan: string; rate_limit_per_hour: string; currency: string; hourly_rate: string; energy_cost_per_kwh: string;
  timezone: string; auto_start: boolean; power_budget_watts: string; webhook_allowed_hosts: string; file_url_hosts: string;
  session_lifetime_hours: string; session_idle_minutes: string; file_retention_days: string; file_store_max_gb: string;
  storage_reserve_mb: string;
};

const FIELDS = ['name', 'plan', 'rate_limit_per_hour', 'currency', 'hourly_rate', 'energy_cost_per_kwh', 'timezone', 'auto_start',
  'power_budget_watts', 'webhook_allowed_hosts', 'file_url_hosts', 'session_lifetime_hours', 'session_idle_minutes',
  'file_retention_days', 'file_store_max_gb', 'storage_reserve_mb'] as const;

/** What each field takes, said when the server refuses a value (its own rule follows in brackets). */
const FIELD_WORDS: Record<string, string> = {
  name: 'Give the farm a name of 1 to 100 characters.',
  plan: 'Choose free, pro or enterprise.',
  rate_limit_per_hour: 'Enter the requests per hour each key may make, 1 to 100,000,000 (enterprise plan only).',
  currency: 'Use a three-letter currency code, like EUR, USD or GBP.',
  hourly_rate: 'Enter the machine cost per print hour, a number from 0 to 1,000,000.',
  energy_cost_per_kwh: 'Enter the price of one kWh, a number from 0 to 1,000.',
  timezone: 'Pick a time zone from the list, like Europe/Berlin or UTC.',
  auto_start: 'Tick or untick it.',
  power_budget_watts: 'Enter watts above 0 (at most 1,000,000), or leave it empty for no budget.',
  webhook_allowed_hosts: 'One host per line: a name (erp.lan), a wildcard (*.example.com), an IP address or a range (192.168.1.0/24, fd00::/8); at most 100.',
  file_url_hosts: 'One host per line: a name (nas.lan), a wildcard (*.example.com), an IP address or a range (192.168.1.0/24, fd00::/8); at most 100.',
  session_lifetime_hours: 'Enter how many hours a sign-in lasts, 1 to 8760.',
  session_idle_minutes: 'Enter after how many idle minutes a sign-in ends, 5 to 525,600.',
  file_retention_days: 'Enter whole days from 1 to 36,500, or leave it empty to keep files forever.',
  file_store_max_gb: 'Enter GiB above 0 (fractions allowed, at most 1,000,000), or leave it empty for no cap.',
  storage_reserve_mb: 'Enter whole MB from 0 to 1,000,000, or leave it empty for the default (200 MB, or 10 % of a small disk).',
};

const toForm = (o: Organization): Form => ({
  name: o.name, plan: o.plan, rate_limit_per_hour: String(o.rate_limit_per_hour), currency: o.currency, hourly_rate: String(o.hourly_rate),
  energy_cost_per_kwh: String(o.energy_cost_per_kwh), timezone: o.timezone, auto_start: o.auto_start,
  power_budget_watts: numberText(o.power_budget_watts), webhook_allowed_hosts: o.webhook_allowed_hosts.join('\n'),
  file_url_hosts: o.file_url_hosts.join('\n'),
  session_lifetime_hours: numberText(o.session_lifetime_hours), session_idle_minutes: numberText(o.session_idle_minutes),
  file_retention_days: numberText(o.file_retention_days), file_store_max_gb: numberText(o.file_store_max_gb),
  storage_reserve_mb: numberText(o.storage_reserve_mb),
});

/** The PATCH body: fields whose value differs from the stored one, or the first number field that is not a number. */
function changes(f: Form, o: Organization): { body: Record<string, unknown> } | { bad: string } {
  const body: Record<string, unknown> = {};
  const num = (k: keyof Form & keyof Organization, nullable = false) => {
    const n = numberOrNull(f[k] as string);
    if (Number.isNaN(n) || (n === null && !nullable)) return k;
    if (n !== o[k]) body[k] = n;
    return null;
  };
  if (f.name.trim() !== o.name) body.name = f.name.trim();
  if (f.plan !== o.plan) body.plan = f.plan;
  if (f.currency.trim().toUpperCase() !== o.currency) body.currency = f.currency.trim().toUpperCase();
  if (f.timezone.trim() !== o.timezone) body.timezone = f.timezone.trim();
  if (f.auto_start !== o.auto_start) body.auto_start = f.auto_start;
  for (const k of ['webhook_allowed_hosts', 'file_url_hosts'] as const) {
    const hosts = f[k].split(/[\n,]/).map((h) => h.trim()).filter(Boolean);
    if (hosts.join('\n') !== o[k].join('\n')) body[k] = hosts;
  }
  const bad =
    num('hourly_rate') ?? num('energy_cost_per_kwh') ?? num('power_budget_watts', true) ??
    num('file_retention_days', true) ?? num('file_store_max_gb', true) ?? num('storage_reserve_mb', true) ??
    (f.plan === 'enterprise' ? num('rate_limit_per_hour') : null) ??
    (o.session_lifetime_hours !== undefined ? num('session_lifetime_hours') : null) ??
    (o.session_idle_minutes !== undefined ? num('session_idle_minutes') : null);
  return bad ? { bad } : { body };
}

const zones = (): string[] => {
  try {
    return (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  } catch {
    return [];
  }
};

function ReadOnly({ org }: { org: Organization }) {
  return html`<dl class="kv org-kv">
    <dt>Name</dt><dd>${org.name}</dd>
    <dt>Plan</dt><dd>${org.plan} (${org.rate_limit_per_hour.toLocaleString()} requests per hour per key)</dd>
    <dt>Currency</dt><dd>${org.currency}</dd>
    <dt>Machine cost per print hour</dt><dd>${org.hourly_rate}</dd>
    <dt>Energy cost per kWh</dt><dd>${org.energy_cost_per_kwh}</dd>
    <dt>Time zone</dt><dd>${org.timezone}</dd>
    <dt>Start jobs automatically</dt><dd>${org.auto_start ? 'yes' : 'no'}</dd>
    <dt>Power budget</dt><dd>${org.power_budget_watts === null ? 'none' : `${org.power_budget_watts} W`}</dd>
  </dl>`;
}

export function OrganizationSettings() {
  const { can } = useSession();
  const org = useResource(() => api.get<Organization>('/v1/organization'), []);
  if (org.error && !org.data) return html`<${ErrorNote} error=${org.error} />`;
  if (!org.data) return html`<p aria-busy="true">Loading…</p>`;
  if (!can('admin:*')) return html`<${ReadOnly} org=${org.data} /><${NeedsScope} scope="admin:*" what="Changing the organization settings" />`;
  return html`<${OrgForm} org=${org.data} onSaved=${(o: Organization) => org.set(o)} />`;
}

function OrgForm({ org, onSaved }: { org: Organization; onSaved: (o: Organization) => void }) {
  const [form, setForm] = useState<Form>(() => toForm(org));
  const [bad, setBad] = useState<{ field: string; rule: string | null } | null>(null);
  const [result, setResult] = useState<{ warnings: string[]; nothing: boolean } | null>(null);
  const tzList = useMemo(zones, []);
  const save = useAction(async (body: Record<string, unknown>) => {
    try {
      const saved = await api.patch<Organization>('/v1/organization', body);
      const { warnings = [], ...record } = saved;
      onSaved(record);
      setForm(toForm(record));
      setResult({ warnings, nothing: false });
    } catch (err) {
      const p = fieldProblem(err, FIELDS);
      if (p) setBad({ field: p.field, rule: p.rule });
      throw err;
    }
  });
  const submit = (e: Event) => {
    e.preventDefault();
    setBad(null);
    setResult(null);
    save.clearError();
    const c = changes(form, org);
    if ('bad' in c) {
      setBad({ field: c.bad, rule: null });
      document.getElementById(`org-${c.bad}`)?.focus();
      return;
    }
    if (Object.keys(c.body).length === 0) return setResult({ warnings: [], nothing: true });
    void save.run(c.body);
  };
  const set = (k: keyof Form) => (e: Event) => {
    const t = e.currentTarget as HTMLInputElement;
    setForm({ ...form, [k]: t.type === 'checkbox' ? t.checked : t.value });
  };

  const field = (k: keyof Form, label: string, control: unknown, hint?: string) => {
    const id = `org-${k}`;
    const isBad = bad?.field === k;
    return html`<div class=${`field${isBad ? ' invalid' : ''}`}>
      <label for=${id}>${label}</label>
      ${control}
      ${hint ? html`<small id=${`${id}-hint`} class="hint">${hint}</small>` : null}
      ${isBad ? html`<small id=${`${id}-error`} class="field-error">${FIELD_WORDS[k]}${bad?.rule ? ` (The server said: ${bad.rule}.)` : ''}</small>` : null}
    </div>`;
  };
  const attrs = (k: keyof Form, hint?: boolean) => ({
    id: `org-${k}`,
    'aria-invalid': bad?.field === k ? 'true' : undefined,
    'aria-describedby': [hint ? `org-${k}-hint` : '', bad?.field === k ? `org-${k}-error` : ''].filter(Boolean).join(' ') || undefined,
  });
  const text = (k: keyof Form, more: Record<string, unknown> = {}, hint = false) =>
    html`<input type="text" ...${attrs(k, hint)} value=${form[k] as string} onInput=${set(k)} ...${more} />`;
  const dec = { inputmode: 'decimal', autocomplete: 'off' };
  const hostList = (k: 'webhook_allowed_hosts' | 'file_url_hosts') =>
    html`<textarea ...${attrs(k, true)} rows="3" value=${form[k]} onInput=${set(k)}></textarea>`;

  return html`<form class="org-form" onSubmit=${submit} novalidate>
    <fieldset>
      <legend>Farm</legend>
      ${field('name', 'Name', text('name', { autocomplete: 'organization' }))}
      ${field('timezone', 'Time zone', html`${text('timezone', { list: 'org-zones', autocomplete: 'off' }, true)}<datalist id="org-zones">${tzList.map((z) => html`<option value=${z}></option>`)}</datalist>`, 'Analytics days and weeks follow it.')}
      ${field('auto_start', 'Start the next job automatically', html`<label class="check"><input type="checkbox" ...${attrs('auto_start', true)} checked=${form.auto_start} onChange=${set('auto_start')} /> Start queued jobs without waiting for someone to clear the bed</label>`, 'Only when the printer can clear its bed by itself (a belt or an ejecting script).')}
      ${field('power_budget_watts', 'Power budget (W)', text('power_budget_watts', dec, true), 'The most the farm may draw for heat-ups at once; heat-ups are staggered to stay under it. Empty: no budget.')}
    </fieldset>
    <fieldset>
      <legend>Costs</legend>
      ${field('currency', 'Currency', text('currency', { autocomplete: 'off', maxlength: 3, class: 'short' }, true), 'Three-letter code (ISO 4217), e.g. EUR.')}
      ${field('hourly_rate', 'Machine cost per print hour', text('hourly_rate', dec))}
      ${field('energy_cost_per_kwh', 'Energy cost per kWh', text('energy_cost_per_kwh', dec))}
    </fieldset>
    <fieldset>
      <legend>Plan and limits</legend>
      ${field('plan', 'Plan', html`<select ...${attrs('plan', true)} value=${form.plan} onChange=${set('plan')}>
          <option value="free">free (100 requests per hour per key)</option>
          <option value="pro">pro (1,000 requests per hour per key)</option>
          <option value="enterprise">enterprise (own limit)</option>
        </select>`, 'A change applies to every key at once.')}
      ${form.plan === 'enterprise' ? field('rate_limit_per_hour', 'Requests per hour per key', text('rate_limit_per_hour', { inputmode: 'numeric', autocomplete: 'off' })) : null}
      ${field('webhook_allowed_hosts', 'Hosts webhooks may call', hostList('webhook_allowed_hosts'), 'One per line, e.g. erp.lan, *.example.com, 192.168.1.0/24. Empty: any host.')}
      ${field('file_url_hosts', 'Hosts jobs may download files from', hostList('file_url_hosts'), 'For a job\'s file_url and its redirects. One per line, e.g. nas.lan, 192.168.1.0/24. Empty: any host (link-local, multicast and broadcast addresses never).')}
    </fieldset>
    <fieldset>
      <legend>Stored files</legend>
      ${field('file_retention_days', 'Remove files unused for (days)', text('file_retention_days', { inputmode: 'numeric', autocomplete: 'off' }, true), 'Counted from the last upload or the end of the last job that printed the file. Files of queued, printing or paused jobs are never removed. Empty: keep files forever.')}
      ${field('file_store_max_gb', 'Most the files may take (GiB)', text('file_store_max_gb', dec, true), 'Over it the least recently used files go first. Empty: no cap.')}
      ${field('storage_reserve_mb', 'Disk space kept for the database (MB)', text('storage_reserve_mb', { inputmode: 'numeric', autocomplete: 'off' }, true), 'Uploads and downloads that would leave less free space are refused, so a full disk never stops the farm from recording its prints. Empty: 200 MB, or 10 % of a small disk.')}
    </fieldset>
    ${org.session_lifetime_hours !== undefined || org.session_idle_minutes !== undefined
      ? html`<fieldset>
          <legend>Sign-in sessions</legend>
          ${org.session_lifetime_hours !== undefined ? field('session_lifetime_hours', 'A sign-in lasts at most (hours)', text('session_lifetime_hours', { inputmode: 'numeric', autocomplete: 'off' })) : null}
          ${org.session_idle_minutes !== undefined ? field('session_idle_minutes', 'Sign out after idle (minutes)', text('session_idle_minutes', { inputmode: 'numeric', autocomplete: 'off' })) : null}
        </fieldset>`
      : null}
    <${ErrorNote} error=${save.error} onDismiss=${save.clearError} />
    ${result?.nothing ? html`<${Notice}>Nothing changed, so nothing was saved.<//>` : null}
    ${result && !result.nothing ? html`<${Notice} kind="success">Saved.<//>` : null}
    ${result && result.warnings.length > 0 ? html`<${Notice} kind="warning"><ul>${result.warnings.map((w) => html`<li>${w}</li>`)}</ul><//>` : null}
    <div class="row end">
      <${Button} onClick=${() => { setForm(toForm(org)); setBad(null); save.clearError(); setResult(null); }}>Undo changes<//>
      <${Button} type="submit" kind="primary" busy=${save.busy}>Save<//>
    </div>
  </form>`;
}
