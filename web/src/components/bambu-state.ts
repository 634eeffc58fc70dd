// A Bambu Lab printer's own state on the card and the printer page: layer x of y, time left and part fan, its AMS trays
// (colour, type, what is left, the one in use, the spool matched to it) and its HMS errors in words with the wiki link.
import { html } from '../lib/html.js';
import { fanWords, hmsByWeight, hmsText, layerWords, remainWords, severityWords, timeLeftWords, type BambuHms, type BambuState, type BambuTray } from '../lib/bambu.js';
import type { LoadedSpool } from '../pages/printer-types.js';
import { Swatch } from './ui.js';
import '../styles/bambu.css';

/** "Layer 12 of 200 · 42 min left · part fan 100 %": what the printer itself reports, for the card's one line. */
export function bambuLine(b: BambuState): string | null {
  const parts = [layerWords(b), timeLeftWords(b.remaining_minutes), b.part_fan_percent ? `part fan ${fanWords(b.part_fan_percent)}` : null].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : null;
}

/** The printer page's facts: every one shown, with "not reported" rather than a gap. */
export function BambuFacts({ b }: { b: BambuState }) {
  return html`<dl class="facts bambu-facts">
    <div><dt>Layer</dt><dd data-bambu="layer">${layerWords(b) ?? 'not printing'}</dd></div>
    <div><dt>Time left (printer’s estimate)</dt><dd data-bambu="time-left">${timeLeftWords(b.remaining_minutes) ?? '–'}</dd></div>
    <div><dt>Part fan</dt><dd data-bambu="fan">${fanWords(b.part_fan_percent)}</dd></div>
    <div><dt>Serial number</dt><dd><code>${b.serial}</code></dd></div>
  </dl>`;
}

/** What the tray holds in words; the swatch beside it carries the colour, never alone. */
function trayText(t: BambuTray): string {
  if (!t.type && !t.color) return 'empty';
  return [t.type ?? 'unknown type', t.color ?? null].filter(Boolean).join(' ');
}

/** The AMS trays by their screen labels; `compact` (the card) leaves out the matched spools. */
export function AmsTrays({ trays, spools, compact = false, printerName }: { trays: BambuTray[]; spools: LoadedSpool[]; compact?: boolean; printerName: string }) {
  if (trays.length === 0) return compact ? null : html`<p class="muted">No AMS reported: the printer feeds from its external spool.</p>`;
  return html`<ul class=${`ams-trays${compact ? ' compact' : ''}`} aria-label=${`AMS trays of ${printerName}`}>
    ${trays.map((t) => {
      const spool = spools.find((s) => s.tool === t.index);
      return html`<li key=${t.index} class=${`ams-tray${t.active ? ' active' : ''}`} data-tray=${t.label}>
        <span class="tray-label">${t.label}</span>
        <${Swatch} color=${t.color} label=${trayText(t)} />
        <span class="tray-remain">${remainWords(t.remain_percent)}</span>
        ${t.active ? html`<span class="badge tray-active"><span aria-hidden="true">▶ </span>in use</span>` : null}
        ${!compact
          ? html`<span class="tray-spool">${spool
              ? html`Spool: ${spool.type}${spool.color ? ` ${spool.color}` : ''} <span class="muted">(${Math.round(spool.remaining_weight)} g left)</span>`
              : html`<span class="muted">no spool matched</span>`}</span>`
          : null}
      </li>`;
    })}
  </ul>`;
}

/** HMS errors, the worst first: severity, module and the words, with the wiki page for what to do (not on a wall). */
export function HmsList({ hms, links = true, limit }: { hms: BambuHms[]; links?: boolean; limit?: number }) {
  if (hms.length === 0) return null;
  const shown = hmsByWeight(hms).slice(0, limit ?? hms.length);
  return html`<ul class="hms-list" aria-label="Printer health messages (HMS)">
    ${shown.map((h) => html`<li key=${h.code} class=${`hms hms-${h.severity}`}>
      <span class="hms-severity">${severityWords(h.severity)}</span>
      <span class="hms-words">${hmsText(h)}</span>
      ${links && h.url
        ? html`<a class="hms-link" href=${h.url} target="_blank" rel="noopener noreferrer">What to do: ${h.code}<span class="visually-hidden"> (Bambu Lab wiki, opens in a new tab)</span></a>`
        : html`<code class="hms-code">${h.code}</code>`}
    </li>`)}
    ${shown.length < hms.length ? html`<li class="muted">and ${hms.length - shown.length} more on the printer’s page</li>` : null}
  </ul>`;
}
