// Settings › API keys › Connect a slicer: one click makes a slicer:upload key; a dialog shows what to paste into each slicer.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction } from '../lib/hooks.js';
import { copyText, copyWords, type CopyOutcome } from '../lib/copy.js';
import { Button, ErrorNote } from '../components/ui.js';
import '../styles/settings-slicer.css';

/** One way to connect, as POST /v1/slicer/keys lists it: a slicer, its host type, the values in the slicer's order. */
export interface SlicerSetup {
  slicer: string;
  host_type: string;
  fields: { label: string; value: string }[];
  note?: string;
}

/** The answer of POST /v1/slicer/keys: the key record, its value (this once) and the setup for every slicer. */
export interface SlicerKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  key: string;
  setup: SlicerSetup[];
}

/** A read-only value with its label and a Copy button; `onCopied` reports the outcome for the dialog's status line. */
function SetupValue({ id, label, value, onCopied }: { id: string; label: string; value: string; onCopied: (label: string, o: CopyOutcome) => void }) {
  const ref = useRef<HTMLInputElement>(null);
  return html`<div class="setup-value">
    <label for=${id}>${label}</label>
    <input id=${id} ref=${ref} type="text" readonly value=${value} spellcheck=${false} autocomplete="off"
      onFocus=${(e: Event) => (e.currentTarget as HTMLInputElement).select()} />
    <button type="button" class="btn secondary small" aria-label=${`Copy ${label}`}
      onClick=${async () => onCopied(label, await copyText(value, ref.current))}>Copy</button>
  </div>`;
}

/**
 * Keys of the WAI-ARIA tabs pattern: the arrows move to the previous or next tab (up/down as the list stands on a wide
 * screen, left/right as it scrolls on a phone), Home and End to the ends.
 */
function nextTab(key: string, current: number, count: number): number | null {
  if (key === 'ArrowDown' || key === 'ArrowRight') return (current + 1) % count;
  if (key === 'ArrowUp' || key === 'ArrowLeft') return (current - 1 + count) % count;
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return null;
}

/**
 * The modal (native <dialog>: focus kept inside, Escape closes) with one tab per setup entry, in the server's order.
 * Every text of the entries comes from the server, which knows its own address and what each slicer expects; the page
 * only lays them out. Closing the dialog forgets the key.
 */
function SlicerDialog({ made, onClose }: { made: SlicerKey; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const tabs = made.setup.length > 1;
  const [tab, setTab] = useState(0);
  const [copied, setCopied] = useState<{ label: string; outcome: CopyOutcome } | null>(null);
  const focusTab = (i: number) => document.getElementById(`slicer-tab-${i}`)?.focus();
  useEffect(() => {
    ref.current?.showModal();
    focusTab(0);
  }, []);
  const pick = (i: number) => {
    setTab(i);
    setCopied(null);
  };
  const onKey = (e: KeyboardEvent) => {
    const to = nextTab(e.key, tab, made.setup.length);
    if (to === null) return;
    e.preventDefault();
    pick(to);
    focusTab(to);
  };
  const onCopied = (label: string, outcome: CopyOutcome) => setCopied({ label, outcome });
  const status = copied ? (copied.outcome === 'copied' ? `Copied “${copied.label}” to the clipboard.` : copyWords(copied.outcome, `“${copied.label}”`)) : '';
  return html`<dialog ref=${ref} class="slicer-dialog" aria-labelledby="slicer-dialog-title" aria-describedby="slicer-once" onClose=${onClose}>
    <h2 id="slicer-dialog-title">Connect a slicer</h2>
    <p class="hint">New key “${made.name}” (<code>${made.prefix}…</code>, permission ${made.scopes.map((s, i) => html`${i > 0 ? ', ' : ''}<code>${s}</code>`)}):
      it can upload G-code and nothing else. In your slicer, add this farm as a network printer and paste these values.</p>
    <p id="slicer-once" class="note warning"><span><strong>The key is shown only in this window.</strong> Copy it into your slicer before you close it:
      the server keeps only a hash. If it is lost, make another and revoke this one in the list.</span></p>
    <div class=${tabs ? 'slicer-setup' : undefined}>
      ${tabs
        ? html`<div class="slicer-tabs" role="tablist" aria-label="Slicer and host type" aria-orientation="vertical" onKeyDown=${onKey}>
            ${made.setup.map((s, i) => html`<button type="button" role="tab" id=${`slicer-tab-${i}`} aria-selected=${i === tab ? 'true' : 'false'}
              aria-controls=${`slicer-panel-${i}`} tabindex=${i === tab ? 0 : -1} aria-label=${`${s.slicer}: ${s.host_type}`} onClick=${() => pick(i)}>
              <span class="tab-slicer">${s.slicer}</span><span class="tab-host">${s.host_type}</span>
            </button>`)}
          </div>`
        : null}
      ${made.setup.map((s, i) => html`<div class="slicer-panel" role=${tabs ? 'tabpanel' : 'region'} id=${`slicer-panel-${i}`}
          aria-labelledby=${tabs ? `slicer-tab-${i}` : `slicer-panel-${i}-title`} hidden=${i !== tab}>
        <h3 id=${`slicer-panel-${i}-title`}>${s.slicer}: ${s.host_type}</h3>
        ${s.note ? html`<p class="hint">${s.note}</p>` : null}
        ${s.fields.map((f, n) => html`<${SetupValue} id=${`setup-${i}-${n}`} label=${f.label} value=${f.value} onCopied=${onCopied} />`)}
      </div>`)}
      ${made.setup.length === 0 ? html`<${SetupValue} id="setup-key" label="API key" value=${made.key} onCopied=${onCopied} />` : null}
    </div>
    <div class="row between slicer-foot">
      <span class="copy-status" role="status">${status}</span>
      <button type="button" class="btn primary" onClick=${() => ref.current?.close()}>Close</button>
    </div>
  </dialog>`;
}

/** The card on the keys page: the button that makes the key, its failure in words, and the dialog once made. */
export function SlicerConnect({ onMade }: { onMade: () => void }) {
  const [made, setMade] = useState<SlicerKey | null>(null);
  const make = useAction(async () => {
    const res = await api.post<{ data: SlicerKey }>('/v1/slicer/keys', {});
    setMade(res.data);
    onMade();
  });
  const close = () => {
    setMade(null);
    // The button was disabled while busy and lost focus: put it back where the dialog was opened from.
    document.getElementById('connect-slicer')?.focus();
  };
  return html`<section class="card slicer-connect" aria-labelledby="slicer-connect-title">
    <h3 id="slicer-connect-title">Send from your slicer</h3>
    <p class="hint">A slicer's network upload can put G-code straight into this farm's queue. One click makes a key that can only upload
      and shows, for each slicer, the values to paste into its printer settings.</p>
    <${ErrorNote} error=${make.error} onDismiss=${make.clearError} />
    <${Button} id="connect-slicer" kind="primary" busy=${make.busy} onClick=${() => make.run()}>Connect a slicer<//>
    ${made ? html`<${SlicerDialog} made=${made} onClose=${close} />` : null}
  </section>`;
}
