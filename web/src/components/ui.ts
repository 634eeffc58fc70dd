// Shared building blocks of every page: errors in words, labelled fields, progress bars, swatches, status badges, confirmations.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { swatchColor } from '../lib/format.js';

/** A failure in words (role=alert so screen readers announce it); nothing when `error` is null. */
export function ErrorNote({ error, onDismiss }: { error: string | null | undefined; onDismiss?: () => void }) {
  if (!error) return null;
  return html`<div class="note error" role="alert">
    <span>${error}</span>
    ${onDismiss ? html`<button type="button" class="link" onClick=${onDismiss}>Dismiss</button>` : null}
  </div>`;
}

export function Notice({ children, kind = 'info' }: { children: ComponentChildren; kind?: 'info' | 'success' | 'warning' }) {
  return html`<div class=${`note ${kind}`} role="status">${children}</div>`;
}

/** A label above its control; `hint` is tied to the control with aria-describedby. */
export function Field({ id, label, hint, children }: { id: string; label: string; hint?: string; children: ComponentChildren }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${children}
    ${hint ? html`<small id=${`${id}-hint`} class="hint">${hint}</small>` : null}
  </div>`;
}

/** 0..100 with the number as text too (never the bar alone). */
export function ProgressBar({ value, label }: { value: number | null | undefined; label: string }) {
  const v = value === null || value === undefined ? null : Math.max(0, Math.min(100, value));
  return html`<div class="progress" role="progressbar" aria-label=${label} aria-valuemin="0" aria-valuemax="100" aria-valuenow=${v ?? undefined}>
    <div class="progress-fill" style=${{ width: `${v ?? 0}%` }}></div>
    <span class="progress-text">${v === null ? '–' : `${v.toFixed(v < 10 ? 1 : 0)} %`}</span>
  </div>`;
}

/** A colour chip plus its name: colour is never the only signal. */
export function Swatch({ color, label }: { color: string | null | undefined; label?: string }) {
  const name = label ?? color ?? 'no colour';
  return html`<span class="swatch-wrap"><span class="swatch" style=${{ background: swatchColor(color) }} aria-hidden="true"></span><span>${name}</span></span>`;
}

const STATUS_ICON: Record<string, string> = {
  idle: '●', printing: '▶', paused: '❚❚', offline: '○', error: '⚠', connecting: '…',
  online: '●', lost: '⚠', stopped: '○',
  queued: '◷', completed: '✓', failed: '✕', cancelled: '⊘', active: '●', low_stock: '!', empty: '○', archived: '▢',
};

/** Status as icon + word with a colour class (status-<name> in the stylesheet). */
export function StatusBadge({ status, text }: { status: string; text?: string }) {
  return html`<span class=${`badge status-${status}`}><span aria-hidden="true">${STATUS_ICON[status] ?? '•'}</span> ${text ?? status.replace(/_/g, ' ')}</span>`;
}

/** A button that runs `onClick` and shows it is busy; `disabled` while busy so a double click sends one request. */
export function Button({ onClick, busy, children, kind = 'secondary', type = 'button', disabled, label, id }: {
  onClick?: () => unknown; busy?: boolean; children: ComponentChildren; kind?: 'primary' | 'secondary' | 'danger' | 'link';
  type?: 'button' | 'submit'; disabled?: boolean; label?: string; id?: string;
}) {
  return html`<button id=${id} type=${type} class=${`btn ${kind}`} onClick=${onClick} disabled=${disabled || busy} aria-busy=${busy ? 'true' : undefined} aria-label=${label}>
    ${busy ? html`<span class="spinner" aria-hidden="true"></span>` : null}${children}
  </button>`;
}

/**
 * A modal confirmation (native <dialog>: focus trapped, Escape cancels). `onConfirm` runs only after the user confirms.
 */
export function ConfirmButton({ children, title, message, confirmText, onConfirm, kind = 'danger', busy, disabled, id }: {
  children: ComponentChildren; title: string; message: string; confirmText: string; onConfirm: () => unknown;
  kind?: 'primary' | 'secondary' | 'danger'; busy?: boolean; disabled?: boolean; id?: string;
}) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return html`<${Button} id=${id} kind=${kind} busy=${busy} disabled=${disabled} onClick=${() => setOpen(true)}>${children}<//>
    <dialog ref=${ref} class="confirm" aria-labelledby=${`${id ?? 'confirm'}-title`} onClose=${() => setOpen(false)}>
      <h2 id=${`${id ?? 'confirm'}-title`}>${title}</h2>
      <p>${message}</p>
      <div class="row end">
        <${Button} onClick=${() => setOpen(false)}>Cancel<//>
        <${Button} kind=${kind} onClick=${() => { setOpen(false); void onConfirm(); }}>${confirmText}<//>
      </div>
    </dialog>`;
}

/** Shown when a list has nothing yet: says why and what to do. */
export function Empty({ children }: { children: ComponentChildren }) {
  return html`<p class="empty">${children}</p>`;
}

/** A page's title row with optional actions on the right. */
export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return html`<div class="page-header"><h1>${title}</h1><div class="actions">${children}</div></div>`;
}
