// Grouped checkbox pickers: API key scopes (src/auth/scopes.ts) and webhook events (src/events/event-names.ts), wildcards included.
import { html } from '../lib/html.js';
import { ADMIN_SCOPE, CONCRETE_SCOPES } from '../../../src/auth/scopes.js';
import { EVENT_GROUPS, EVENT_TYPES } from '../../../src/events/event-names.js';

interface Group {
  /** The wildcard that covers the group: printers:*, job.* */
  wildcard: string;
  title: string;
  members: { value: string; label: string; hint?: string }[];
}

/** What each concrete scope allows, in words. */
const SCOPE_WORDS: Record<string, string> = {
  'printers:read': 'see printers and their state',
  'printers:write': 'add, change and control printers',
  'jobs:read': 'see jobs and the queue',
  'jobs:write': 'upload, change and cancel jobs',
  'materials:read': 'see spools',
  'materials:write': 'add, load and weigh spools',
  'analytics:read': 'see figures and export them',
  'webhooks:write': 'manage webhooks and see their deliveries',
  'metrics:read': 'scrape GET /metrics (Prometheus)',
  'slicer:upload': 'upload G-code from a slicer (OctoPrint, PrusaLink and Moonraker host APIs)',
};

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export const SCOPE_GROUPS: Group[] = [...new Set(CONCRETE_SCOPES.map((s) => s.split(':')[0] as string))].map((resource) => ({
  wildcard: `${resource}:*`,
  title: cap(resource),
  members: CONCRETE_SCOPES.filter((s) => s.startsWith(`${resource}:`)).map((s) => ({ value: s, label: s.split(':')[1] as string, hint: SCOPE_WORDS[s] })),
}));

export const EVENT_GROUP_LIST: Group[] = EVENT_GROUPS.map((wildcard) => {
  const prefix = wildcard.slice(0, -1);
  return {
    wildcard,
    title: `${cap(prefix.slice(0, -1))} events`,
    members: EVENT_TYPES.filter((t) => t.startsWith(prefix)).map((t) => ({ value: t, label: t.slice(prefix.length) })),
  };
});

/**
 * Checkbox groups with a top "everything" box and one wildcard per group. A box covered by a chosen wildcard shows
 * checked and disabled; choosing a wildcard drops the members it covers, so the value stays minimal.
 */
function GroupedPicker({ id, legend, all, allLabel, allHint, groups, value, onChange, invalid }: {
  id: string; legend: string; all: string; allLabel: string; allHint: string; groups: Group[];
  value: string[]; onChange: (v: string[]) => void; invalid?: boolean;
}) {
  const has = (v: string) => value.includes(v);
  const toggle = (v: string, on: boolean, group?: Group) => {
    if (v === all) return onChange(on ? [all] : []);
    let next = value.filter((x) => x !== v);
    if (on) {
      next.push(v);
      if (group && v === group.wildcard) next = next.filter((x) => !group.members.some((m) => m.value === x));
    }
    onChange(next);
  };
  const box = (v: string, label: unknown, covered: boolean, group?: Group, hint?: string) => html`<label class="check">
    <input type="checkbox" value=${v} checked=${covered || has(v)} disabled=${covered}
      onChange=${(e: Event) => toggle(v, (e.currentTarget as HTMLInputElement).checked, group)} />
    <span>${label}${hint ? html` <small class="hint">${hint}</small>` : null}</span>
  </label>`;
  const allOn = has(all);
  return html`<fieldset class=${`picker${invalid ? " invalid" : ""}`} id=${id}>
    <legend>${legend}</legend>
    ${box(all, html`${allLabel} <code>${all}</code>`, false, undefined, allHint)}
    <div class="picker-groups">
      ${groups.map((g) => html`<fieldset class="picker-group">
        <legend>${g.title}</legend>
        ${box(g.wildcard, html`all <code>${g.wildcard}</code>`, allOn, g, 'including ones added later')}
        ${g.members.map((m) => box(m.value, html`${m.label} <code>${m.value}</code>`, allOn || has(g.wildcard), g, m.hint))}
      </fieldset>`)}
    </div>
  </fieldset>`;
}

export function ScopePicker({ value, onChange, invalid }: { value: string[]; onChange: (v: string[]) => void; invalid?: boolean }) {
  return html`<${GroupedPicker} id="key-scopes" legend="Permissions" all=${ADMIN_SCOPE} allLabel="Everything"
    allHint="admin: also users, keys, webhooks and settings" groups=${SCOPE_GROUPS} value=${value} onChange=${onChange} invalid=${invalid} />`;
}

export function EventPicker({ value, onChange, invalid, id = 'webhook-events' }: { value: string[]; onChange: (v: string[]) => void; invalid?: boolean; id?: string }) {
  return html`<${GroupedPicker} id=${id} legend="Events" all="*" allLabel="All events"
    allHint="every job, printer and material event" groups=${EVENT_GROUP_LIST} value=${value} onChange=${onChange} invalid=${invalid} />`;
}
