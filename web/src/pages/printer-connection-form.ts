// The Connection part of the printer form: the kind picker that explains each URL form, the address fields that write
// connection_url (or a pasted URL that fills them), the credential, and what GET /v1/printers/discover found.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useResource } from '../lib/hooks.js';
import { href } from '../lib/router.js';
import {
  buildNetworkUrl, EMPTY_NETWORK, KIND_ORDER, KINDS, kindOfUrl, parseNetworkUrl,
  type NetworkFields, type NetworkKind, type PrinterKind,
} from '../lib/printer-kinds.js';
import { Button, ErrorNote, Field } from '../components/ui.js';

interface SerialPort {
  path: string;
  by_id: string | null;
  manufacturer: string | null;
  printer_id: string | null;
}

interface NetworkPrinter {
  kind: NetworkKind;
  name: string;
  host: string;
  port: number;
  connection_url: string;
  version: string | null;
  in_use_by: string | null;
}

interface Discovered {
  data: SerialPort[];
  network?: NetworkPrinter[];
  mdns?: { enabled: boolean; error: string | null };
}

export interface ConnectionValue {
  connection_url: string;
  /** A new key as typed ('' = none given: create sends none, edit keeps the stored one). */
  api_key: string;
  /** Edit only: remove the stored key. */
  remove_key: boolean;
}

interface Props {
  value: ConnectionValue;
  onChange: (next: ConnectionValue) => void;
  /** Edit: whether the printer has a key stored (the key itself is never shown). */
  hasKey: boolean;
  /** The API's refusal of the URL or the key, in words, shown under that field. */
  urlError: string | null;
  keyError: string | null;
}

/** USB ports present now, to fill the URL with one click (the ones in use link to their printer). */
function PortList({ found, onPick }: { found: Discovered | undefined; onPick: (url: string) => void }) {
  if (found && found.data.length === 0) return html`<p class="hint">No USB printer is plugged in. Plug one in and press “Look again”, or type a URL below.</p>`;
  return html`<ul class="ports" aria-labelledby="found-title">
    ${(found?.data ?? []).map((p) => html`<li key=${p.path}>
      <span><code>${p.by_id ?? p.path}</code>${p.manufacturer ? html` <span class="muted">${p.manufacturer}</span>` : null}</span>
      ${p.printer_id
        ? html`<a href=${href('printers', p.printer_id)}>in use by a printer</a>`
        : html`<${Button} kind="secondary" onClick=${() => onPick(`serial://${p.by_id ?? p.path}`)}>Use this port<//>`}
    </li>`)}
  </ul>`;
}

/** Network printers announced by mDNS: a click fills the form; one that a printer already uses is marked, not offered. */
function NetworkList({ found, kind, onPick }: { found: Discovered | undefined; kind: NetworkKind; onPick: (p: NetworkPrinter) => void }) {
  if (!found) return null;
  if (found.mdns && !found.mdns.enabled) return html`<p class="hint">This server does not look for printers on the network (started with --no-mdns): type the address below.</p>`;
  const list = found.network ?? [];
  // Bambu printers announce themselves over Bambu's own SSDP, not mDNS: when none was found, say where the address is.
  if (kind === 'bambu' && !list.some((p) => p.kind === 'bambu')) {
    return html`<p class="hint">Bambu Lab printers are not found by this search. Their address and serial number are on the printer’s screen (Settings → WLAN or Network, and Settings → Device).</p>`;
  }
  return html`
    ${found.mdns?.error ? html`<p class="hint">The network could not be searched: ${found.mdns.error}</p>` : null}
    ${list.length === 0
      ? html`<p class="hint">No printer announced itself on the network. Type its address below, or press “Look again”.</p>`
      : html`<ul class="ports network-found" aria-labelledby="found-title">
          ${list.map((p) => html`<li key=${p.connection_url} class=${p.in_use_by ? 'in-use' : undefined}>
            <span><strong>${p.name}</strong> <span class="muted">${KINDS[p.kind].label}${p.version ? ` ${p.version}` : ''}</span><br />
              <code>${p.connection_url}</code></span>
            ${p.in_use_by
              ? html`<a href=${href('printers', p.in_use_by)}>in use by a printer</a>`
              : html`<${Button} kind="secondary" label=${`Use ${p.name}`} onClick=${() => onPick(p)}>Use this printer<//>`}
          </li>`)}
        </ul>`}`;
}

type TextInput = (id: string, label: string, v: string, on: (s: string) => void, opts?: { hint?: string; placeholder?: string; inputMode?: string }) => unknown;

/**
 * A Bambu printer's own fields: its serial number, the FTPS port, and the certificate pin, which the server fills on
 * first contact when empty, and which is emptied (or replaced on the printer page) to re-pin after a reset.
 */
function BambuAddress({ fields, text, editField }: { fields: NetworkFields; text: TextInput; editField: (patch: Partial<NetworkFields>) => void }) {
  return html`
    <div class="address-row">
      ${text('printer-serial', 'Serial number', fields.serial ?? '', (serial) => editField({ serial }), { placeholder: '01P00A000000001', hint: 'On the printer’s screen (Settings → Device) or its label.' })}
      ${text('printer-ftp-port', 'Files port (FTPS)', fields.ftpPort ?? '', (ftpPort) => editField({ ftpPort }), { placeholder: '990', inputMode: 'numeric', hint: 'Empty: 990.' })}
    </div>
    ${text('printer-fingerprint', 'Certificate fingerprint (SHA-256)', fields.fingerprint, (fingerprint) => editField({ fingerprint }), {
      hint: 'The printer’s certificate is self-signed: it is pinned by this fingerprint. Empty: the certificate it presents on first contact is pinned and written here. To re-pin after a reset, use the button on the printer’s page, or empty this field and save.',
    })}`;
}

export function ConnectionFields({ value, onChange, hasKey, urlError, keyError }: Props) {
  const initial = parseNetworkUrl(value.connection_url);
  const [kind, setKind] = useState<PrinterKind>(kindOfUrl(value.connection_url));
  const [fields, setFields] = useState<NetworkFields>(initial?.fields ?? EMPTY_NETWORK);
  const found = useResource(() => api.get<Discovered>('/v1/printers/discover'), []);
  const info = KINDS[kind];
  const set = (patch: Partial<ConnectionValue>) => onChange({ ...value, ...patch });

  const pickKind = (next: PrinterKind) => {
    setKind(next);
    if (next === 'serial') {
      if (kindOfUrl(value.connection_url) !== 'serial') set({ connection_url: '' });
    } else {
      set({ connection_url: buildNetworkUrl(next, fields) });
    }
  };
  const editField = (patch: Partial<NetworkFields>) => {
    const next = { ...fields, ...patch };
    setFields(next);
    if (kind !== 'serial') set({ connection_url: buildNetworkUrl(kind, next) });
  };
  // A typed or pasted URL: the kind and fields follow it when they can read it.
  const editUrl = (url: string) => {
    set({ connection_url: url });
    const parsed = parseNetworkUrl(url);
    if (parsed) {
      setKind(parsed.kind);
      setFields(parsed.fields);
    } else if (kindOfUrl(url) !== kind && (kindOfUrl(url) !== 'serial' || /^[a-z]+:/i.test(url))) {
      setKind(kindOfUrl(url));
    }
  };
  const pickNetwork = (p: NetworkPrinter) => editUrl(p.connection_url);

  const text = (id: string, label: string, v: string, on: (s: string) => void, opts: { hint?: string; placeholder?: string; inputMode?: string } = {}) =>
    html`<${Field} id=${id} label=${label} hint=${opts.hint}>
      <input id=${id} type="text" value=${v} placeholder=${opts.placeholder} inputmode=${opts.inputMode} autocomplete="off" spellcheck=${false}
        aria-describedby=${opts.hint ? `${id}-hint` : undefined} onInput=${(e: Event) => on((e.target as HTMLInputElement).value)} />
    <//>`;

  return html`<div class="connection-fields">
    <fieldset class="kind-picker">
      <legend>Kind of printer</legend>
      <div class="kinds">
        ${KIND_ORDER.map((k) => html`<label key=${k} class=${`kind-option${k === kind ? ' chosen' : ''}`}>
          <input type="radio" name="printer-kind" value=${k} checked=${k === kind} onChange=${() => pickKind(k)} /> ${KINDS[k].label}
        </label>`)}
      </div>
    </fieldset>

    <div class="found">
      <div class="row between">
        <strong id="found-title">${kind === 'serial' ? 'USB serial ports on this server' : 'Printers announcing themselves on the network'}</strong>
        <${Button} kind="link" busy=${found.loading} onClick=${() => found.reload()}>Look again<//>
      </div>
      <${ErrorNote} error=${found.error} />
      ${kind === 'serial'
        ? html`<${PortList} found=${found.data} onPick=${editUrl} />`
        : html`<${NetworkList} found=${found.data} kind=${kind} onPick=${pickNetwork} />`}
    </div>

    ${kind !== 'serial'
      ? html`<div class="address">
          <div class="address-row">
            ${text('printer-host', 'Host or IP address', fields.host, (host) => editField({ host }), { placeholder: info.placeholder.replace(/^.*:\/\/|:\d+$/g, '') })}
            ${text('printer-port', 'Port', fields.port, (port) => editField({ port }), { placeholder: String(info.ports![fields.https ? 'https' : 'http']), inputMode: 'numeric', hint: kind === 'bambu' ? 'MQTT; empty: 8883.' : 'Empty: the default.' })}
          </div>
          ${kind === 'octoprint' ? text('printer-path', 'Path prefix', fields.path, (path) => editField({ path }), { placeholder: '/octoprint', hint: 'Only when OctoPrint is served under a path.' }) : null}
          ${kind === 'bambu'
            ? html`<${BambuAddress} fields=${fields} text=${text} editField=${editField} />`
            : html`<label class="check"><input id="printer-https" type="checkbox" checked=${fields.https} onChange=${(e: Event) => editField({ https: (e.target as HTMLInputElement).checked })} /> Use HTTPS</label>`}
          ${fields.https && kind !== 'bambu'
            ? text('printer-fingerprint', 'Certificate fingerprint (SHA-256)', fields.fingerprint, (fingerprint) => editField({ fingerprint }), {
                hint: 'Only for a self-signed certificate: its SHA-256, 64 hex digits (colons allowed). Empty: the certificate must be trusted normally.',
              })
            : null}
        </div>`
      : null}

    <${Field} id="printer-connection_url" label="Connection URL" hint=${info.urlHint}>
      <input id="printer-connection_url" name="connection_url" type="text" required placeholder=${info.placeholder} autocomplete="off" spellcheck=${false}
        aria-describedby="printer-connection_url-hint" aria-invalid=${urlError ? 'true' : undefined} value=${value.connection_url}
        onInput=${(e: Event) => editUrl((e.target as HTMLInputElement).value)} />
    <//>
    <${ErrorNote} error=${urlError} />

    ${info.keyLabel
      ? html`<${Field} id="printer-api_key" label=${hasKey ? `Replace the ${info.keyLabel}` : info.keyLabel}
            hint=${`${info.keyHint}${hasKey ? ' A key is stored (it is never shown); leave this empty to keep it.' : ''}`}>
          <input id="printer-api_key" name="api_key" type="password" autocomplete="new-password" spellcheck=${false}
            aria-describedby="printer-api_key-hint" aria-invalid=${keyError ? 'true' : undefined} value=${value.api_key}
            onInput=${(e: Event) => set({ api_key: (e.target as HTMLInputElement).value, remove_key: false })} />
        <//>
        ${hasKey
          ? html`<p class="key-stored">A key is stored.
              <label class="check"><input id="printer-remove-key" type="checkbox" checked=${value.remove_key}
                onChange=${(e: Event) => set({ remove_key: (e.target as HTMLInputElement).checked, api_key: '' })} /> Remove the stored key</label></p>`
          : null}
        <${ErrorNote} error=${keyError} />`
      : null}
  </div>`;
}
