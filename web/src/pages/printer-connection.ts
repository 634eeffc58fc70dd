// How the server reaches the printer (connection_url, firmware, baud, connected since) and the serial link's counters.
import { html } from '../lib/html.js';
import { dateTime, relative } from '../lib/format.js';
import { KINDS } from '../lib/printer-kinds.js';
import type { Printer, SerialStats } from './printer-types.js';

/** The counters of the record's `serial` field in reading order, with what each means for an owner. */
type CounterKey = Exclude<keyof SerialStats, 'connected_since' | 'baud_rate'>;
const COUNTERS: Array<[key: CounterKey, label: string, hint: string]> = [
  ['lines_sent', 'Lines sent', 'G-code lines written to the printer'],
  ['lines_acked', 'Lines acknowledged', 'lines the firmware answered with ok'],
  ['resends', 'Resend requests', 'the printer got a garbled line and asked again: many point to a bad USB cable or interference'],
  ['lines_resent', 'Lines resent', 'lines written again after a resend request or a timeout'],
  ['timeouts', 'Timeouts', 'times the printer did not answer in time'],
  ['errors', 'Firmware errors', 'error lines from the firmware (unknown command, halted, thermal problems)'],
  ['spurious_oks', 'Unexpected oks', 'answers that matched no line sent (ignored)'],
  ['bytes_written', 'Bytes written', 'everything written to the link, resends included'],
];

const SKIP = new Set(['connected_since', 'baud_rate']);

const human = (key: string) => key.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

function baudOf(p: Printer): string {
  if (p.serial?.baud_rate) return `${p.serial.baud_rate.toLocaleString()} baud`;
  const m = /[?&]baud=(\d+)/.exec(p.connection_url);
  if (m) return `${Number(m[1]).toLocaleString()} baud (from the connection URL)`;
  if (p.connection_url.startsWith('tcp://')) return 'not applicable (network link)';
  return 'not known yet';
}

function SerialTable({ serial }: { serial: SerialStats }) {
  const known = COUNTERS.filter(([k]) => typeof serial[k] === 'number');
  const others = Object.entries(serial).filter(([k, v]) => !SKIP.has(k) && typeof v === 'number' && !COUNTERS.some(([c]) => c === k));
  const sent = typeof serial.lines_sent === 'number' ? serial.lines_sent : 0;
  const resends = typeof serial.resends === 'number' ? serial.resends : 0;
  const rate = sent > 0 ? (resends / sent) * 100 : null;
  return html`<table class="data serial-stats">
    <caption>Serial statistics${serial.connected_since ? ' of the current link' : ' of the last link'}</caption>
    <thead><tr><th scope="col">Counter</th><th scope="col" class="num">Value</th></tr></thead>
    <tbody>
      ${known.map(([k, label, hint]) => html`<tr key=${k}><th scope="row">${label}<small class="hint">${hint}</small></th><td class="num">${(serial[k] as number).toLocaleString()}</td></tr>`)}
      ${others.map(([k, v]) => html`<tr key=${k}><th scope="row">${human(k)}</th><td class="num">${(v as number).toLocaleString()}</td></tr>`)}
      ${rate !== null
        ? html`<tr><th scope="row">Resend rate<small class="hint">${rate > 1 ? 'high: check the USB cable, its length and the power supply' : 'healthy (under 1 %)'}</small></th><td class="num">${rate.toFixed(rate < 1 ? 2 : 1)} %</td></tr>`
        : null}
    </tbody>
  </table>`;
}

export function PrinterConnection({ printer }: { printer: Printer }) {
  const serial = printer.serial ?? null;
  const since = serial?.connected_since ?? null;
  return html`<section class="card printer-connection" aria-labelledby="conn-title">
    <h2 id="conn-title">Connection</h2>
    <div class="conn-grid">
    <dl class="facts">
      <div><dt>Connection URL</dt><dd><code class="wrap">${printer.connection_url}</code></dd></div>
      <div><dt>Firmware</dt><dd>${printer.firmware ?? 'not known until the first connection'}</dd></div>
      <div><dt>Kind</dt><dd>${KINDS[printer.kind].label}</dd></div>
      ${printer.kind === 'serial'
        ? html`<div><dt>Baud rate</dt><dd>${baudOf(printer)}</dd></div>`
        : html`<div><dt>${KINDS[printer.kind].keyLabel}</dt><dd>${printer.has_api_key ? 'a key is stored (never shown)' : 'none stored'}</dd></div>`}
      <div><dt>Connected since</dt><dd>${since ? `${dateTime(since)} (${relative(since)})` : printer.connecting ? 'connecting now' : 'not connected'}</dd></div>
      ${printer.error ? html`<div><dt>Last problem</dt><dd>${printer.error.message} <small class="hint">(${printer.error.code})</small></dd></div>` : null}
    </dl>
    ${serial
      ? html`<div class="table-wrap"><${SerialTable} serial=${serial} /></div>`
      : printer.kind !== 'serial'
        ? html`<p class="empty">${KINDS[printer.kind].label} prints its own copy of each file: there is no line-by-line link to count.</p>`
        : html`<p class="empty">${printer.serial === undefined ? 'This server does not report serial statistics yet.' : 'No serial statistics yet: the printer has not been connected since the server started.'}</p>`}
    </div>
  </section>`;
}
