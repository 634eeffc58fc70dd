// Form helpers of the admin pages: which field a 400 names, number inputs, paged lists, and the copy-once secret field.
import { useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api, ApiError, type Page, type Query } from '../lib/api.js';
import { copyText, copyWords, type CopyOutcome } from '../lib/copy.js';
import '../styles/settings.css';

/**
 * Every page of a list (at most `maxPages` of 100): small lists the page needs whole (printers for names and pickers).
 * Stops early when the server says there is no more.
 */
export async function fetchAll<T>(path: string, query: Query = {}, maxPages = 10): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; page <= maxPages; page++) {
    const res = await api.get<Page<T>>(path, { ...query, page, per_page: 100 });
    out.push(...res.data);
    if (page >= (res.pagination?.total_pages ?? 1)) break;
  }
  return out;
}

/** A failed request's field and what the server said about it: `currency: must match ...` -> {field: 'currency', rule}. */
export interface FieldProblem {
  field: string;
  rule: string;
}

/**
 * The field a 400 names, when it is one of `known` (messages read `name: rule`, `query parameter x: rule` or
 * `unknown field "x"`). null when the failure is not about one field.
 */
export function fieldProblem(err: unknown, known: readonly string[]): FieldProblem | null {
  if (!(err instanceof ApiError) || err.status !== 400) return null;
  const m = /^(?:query parameter )?([a-z_]+)(?:\[\d+\])?(?:\.[a-z_]+)?: (.*)$/i.exec(err.message);
  if (m && known.includes(m[1] as string)) return { field: m[1] as string, rule: m[2] as string };
  const quoted = /"([a-z_]+)"/i.exec(err.message);
  if (quoted && known.includes(quoted[1] as string)) return { field: quoted[1] as string, rule: err.message };
  return null;
}

/** A number input's text as a number: '' -> null; anything not a number -> NaN (the caller names the field). */
export function numberOrNull(text: string): number | null {
  const t = text.trim().replace(',', '.');
  if (t === '') return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : Number.NaN;
}

/** Text of an optional number for an input ('' for null/undefined). */
export const numberText = (n: number | null | undefined): string => (n === null || n === undefined ? '' : String(n));

/**
 * A secret shown once: a read-only field (selected on focus) with a Copy button and a status line saying it was copied.
 */
export function CopyField({ id, label, value, note }: { id: string; label: string; value: string; note?: string }) {
  const ref = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<CopyOutcome | null>(null);
  const copy = async () => setState(await copyText(value, ref.current));
  return html`<div class="field copy-field">
    <label for=${id}>${label}</label>
    <div class="row copy-row">
      <input id=${id} ref=${ref} type="text" readonly value=${value} spellcheck=${false} autocomplete="off"
        aria-describedby=${note ? `${id}-note` : undefined} onFocus=${(e: Event) => (e.currentTarget as HTMLInputElement).select()} />
      <button type="button" class="btn primary" onClick=${copy}>Copy</button>
    </div>
    ${note ? html`<small id=${`${id}-note`} class="hint">${note}</small>` : null}
    <span class="copy-status" role="status">${copyWords(state)}</span>
  </div>`;
}

/** Shown instead of controls when the session lacks the scope a part needs. */
export function NeedsScope({ scope, what }: { scope: string; what: string }) {
  return html`<p class="note info needs-scope"><span>${what} needs the <code>${scope}</code> permission, which your session does not have. Ask an admin (owner or admin role) to do it, or for a role that allows it.</span></p>`;
}

/** Page x of y with previous/next buttons; nothing when everything fits on one page. */
export function Pager({ page, totalPages, onPage, label }: { page: number; totalPages: number; onPage: (p: number) => void; label: string }) {
  if (totalPages <= 1) return null;
  return html`<nav class="row page-nav" aria-label=${label}>
    <button type="button" class="btn secondary" disabled=${page <= 1} onClick=${() => onPage(page - 1)}>Previous</button>
    <span>Page ${page} of ${totalPages}</span>
    <button type="button" class="btn secondary" disabled=${page >= totalPages} onClick=${() => onPage(page + 1)}>Next</button>
  </nav>`;
}
