// The printer page's Bambu Lab parts: its own state (layer, time left, fan, AMS trays with their matched spools, HMS
// errors) and its certificate pin: shown, and re-pinned on the owner's word after the printer was reset.
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction } from '../lib/hooks.js';
import { href } from '../lib/router.js';
import { pinnedInUrl, shownFingerprint, urlFingerprint, withFingerprint, type BambuState } from '../lib/bambu.js';
import { AmsTrays, BambuFacts, HmsList } from '../components/bambu-state.js';
import { ConfirmButton, ErrorNote } from '../components/ui.js';
import type { Printer } from './printer-types.js';

/** "Bambu Lab P1S" whether the printer names itself with the brand or not. */
const titleOf = (model: string | null): string => (!model ? 'Bambu Lab printer' : /^bambu/i.test(model) ? model : `Bambu Lab ${model}`);

export function BambuSection({ printer: p, b, canWrite, onChanged }: { printer: Printer; b: BambuState; canWrite: boolean; onChanged: (next: Printer) => void }) {
  return html`<section class="card bambu-state" aria-labelledby="bambu-title">
    <h2 id="bambu-title">${titleOf(b.model)}</h2>
    ${p.status === 'offline' ? html`<p class="hint" data-bambu="stale">Offline: what follows is what the printer last reported.</p>` : null}
    <${BambuFacts} b=${b} />
    <h3>Certificate</h3>
    <${BambuPin} printer=${p} b=${b} canWrite=${canWrite} onChanged=${onChanged} />
    <h3>Health messages (HMS)</h3>
    ${b.hms.length > 0 ? html`<${HmsList} hms=${b.hms} />` : html`<p class="muted" data-bambu="no-hms">None: the printer reports no problem.</p>`}
    <h3>AMS</h3>
    <${AmsTrays} trays=${b.ams} spools=${p.materials} printerName=${p.name} />
  </section>`;
}

/** Sends the URL with the new pin (the server reconnects with it) and hands back the record. */
function usePinChange(p: Printer, onChanged: (next: Printer) => void) {
  return useAction(async (fingerprint: string) => {
    const url = withFingerprint(p.connection_url, fingerprint);
    if (url === null) throw new Error('The connection URL cannot be read as a Bambu one: change it in the printer settings.');
    onChanged(await api.patch<Printer>(`/v1/printers/${encodeURIComponent(p.id)}`, { connection_url: url }));
  });
}

/**
 * The pin as the owner sees it: the server pins the certificate on first contact and writes it into the URL, so a
 * changed one is refused. After that tls_error the certificate the printer presents now is shown and trusted only on
 * the owner's word (a reset printer makes a new one; so would another device at its address).
 */
export function BambuPin({ printer: p, b, canWrite, onChanged }: { printer: Printer; b: BambuState; canWrite: boolean; onChanged: (next: Printer) => void }) {
  const change = usePinChange(p, onChanged);
  const pinned = b.certificate_fingerprint ?? urlFingerprint(p.connection_url);
  const inUrl = pinnedInUrl(p.connection_url, pinned);
  const presented = p.offline_reason === 'tls_error' ? (b.presented_fingerprint ?? null) : null;
  return html`<div class="bambu-pin" data-bambu="pin">
    <dl class="facts">
      <div><dt>Certificate (SHA-256)</dt><dd>${pinned ? html`<code data-fingerprint>${shownFingerprint(pinned)}</code>` : 'none seen yet: pinned on first contact'}</dd></div>
      <div><dt>Pinned</dt><dd>${!pinned ? '–' : inUrl ? 'in the connection URL: another certificate is refused' : 'on first contact (being written into the URL)'}</dd></div>
    </dl>
    ${presented
      ? html`<p class="warn-line" data-bambu="presented"><span aria-hidden="true">⚠ </span>The printer now presents another certificate:
          <code>${shownFingerprint(presented)}</code>. A printer makes a new one when it is reset or its firmware is reinstalled.</p>`
      : null}
    ${canWrite && presented
      ? html`<div class="row"><${ConfirmButton} id="bambu-repin" kind="primary" title="Trust the new certificate?" busy=${change.busy} confirmText="Re-pin"
          message=${`Only if you reset this printer or reinstalled its firmware: the server will trust the certificate ${shownFingerprint(presented)} from now on and reconnect.`}
          onConfirm=${() => change.run(presented)}>Re-pin to the new certificate<//></div>`
      : null}
    ${canWrite && p.offline_reason === 'tls_error' && !presented
      ? html`<p><a href=${href('printer-settings', p.id)}>Change the fingerprint in the printer settings</a></p>`
      : null}
    <${ErrorNote} error=${change.error} onDismiss=${change.clearError} />
  </div>`;
}
