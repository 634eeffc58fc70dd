// The printer console: send G-code commands (POST /v1/printers/:id/commands) and read the printer's replies, newest last.
import { useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api, ApiError } from '../lib/api.js';
import { errorWords } from '../lib/error-words.js';
import { Button, Notice } from '../components/ui.js';
import type { Printer } from './printer-types.js';
import { now } from '../lib/clock.js';

interface CommandResult {
  command: string;
  ok: boolean;
  response: string[];
  timed_out?: boolean;
}

interface Entry {
  n: number;
  at: Date;
  command: string;
  state: 'sending' | 'done' | 'failed';
  result?: CommandResult;
  error?: string;
}

/** What passes while a job prints (the API reference, POST /v1/printers/:id/commands: the console's safe list). */
const SAFE_WHILE_PRINTING = ['M105', 'M114', 'M115', 'M117', 'M119', 'M220', 'M221', 'M27', 'M31', 'M112'];
const SAFE_WORDS = 'M105 (temperatures), M114 (position), M115 (firmware), M117 (display message), M119 (endstops), M220 (speed), M221 (flow), M27 (SD progress), M31 (print time) and M112 (emergency stop)';

const HISTORY_MAX = 100;

function refusalWords(err: unknown, command: string): string {
  if (err instanceof ApiError && err.code === 'printer_busy') {
    return `Not sent: ${command} could disturb the running print, so the server refused it (${err.message.replace(/\.$/, '')}). While a job is printing or paused only ${SAFE_WORDS} pass. Send it after the job has ended or been cancelled.`;
  }
  return `Not sent: ${errorWords(err)}`;
}

export function PrinterConsole({ printer, canWrite }: { printer: Printer; canWrite: boolean }) {
  const [text, setText] = useState('');
  const [entries, setEntries] = useState<Entry[]>([]);
  const [recall, setRecall] = useState<number | null>(null);
  const counter = useRef(0);
  const log = useRef<HTMLOListElement>(null);
  const printing = printer.status === 'printing' || printer.status === 'paused';
  const offline = printer.status === 'offline';

  const update = (n: number, patch: Partial<Entry>) => setEntries((list) => list.map((e) => (e.n === n ? { ...e, ...patch } : e)));

  const send = async (command: string) => {
    const trimmed = command.trim();
    if (!trimmed) return;
    const n = ++counter.current;
    setEntries((list) => [...list.slice(-(HISTORY_MAX - 1)), { n, at: new Date(now()), command: trimmed, state: 'sending' }]);
    setText('');
    setRecall(null);
    try {
      const res = await api.post<{ printer_id: string; results: CommandResult[] }>(`/v1/printers/${encodeURIComponent(printer.id)}/commands`, {
        commands: [trimmed],
      });
      const result = res.results[0];
      update(n, result ? { state: 'done', result } : { state: 'failed', error: 'The printer gave no answer for this command.' });
    } catch (err) {
      update(n, { state: 'failed', error: refusalWords(err, trimmed) });
      // Keep what was typed when nothing was sent, so it can be corrected.
      setText((t) => t || trimmed);
    }
    requestAnimationFrame(() => log.current?.lastElementChild?.scrollIntoView({ block: 'nearest' }));
  };

  const sent = entries.map((e) => e.command);
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
    if (sent.length === 0) return;
    e.preventDefault();
    const next = recall === null ? (e.key === 'ArrowUp' ? sent.length - 1 : null) : recall + (e.key === 'ArrowUp' ? -1 : 1);
    if (next === null || next >= sent.length) {
      setRecall(null);
      setText('');
    } else {
      const i = Math.max(0, next);
      setRecall(i);
      setText(sent[i]!);
    }
  };

  const upper = text.trim().split(/\s+/)[0]?.toUpperCase() ?? '';
  const willBeRefused = printing && upper !== '' && !SAFE_WHILE_PRINTING.includes(upper);
  const disabledWhy = !canWrite ? 'Your sign-in may only look at printers (it lacks printers:write).' : offline ? 'The printer is offline: connect it to use the console.' : null;

  return html`<section class="card printer-console" aria-labelledby="console-title">
    <h2 id="console-title">Console</h2>
    ${printing
      ? html`<${Notice} kind="warning"><span>A job is ${printer.status} on this printer. To protect the print, the console only passes ${SAFE_WORDS}; other commands are refused and nothing is sent.</span><//>`
      : null}
    <ol class="console-log" ref=${log} tabindex="0" aria-label="Sent commands and replies" aria-live="polite">
      ${entries.length === 0 ? html`<li class="hint">Nothing sent yet. Try M105 to read the temperatures.</li>` : null}
      ${entries.map(
        (e) => html`<li key=${e.n} class=${`console-entry ${e.state === 'failed' || (e.result && !e.result.ok) ? 'bad' : ''}`}>
          <div class="console-cmd"><span aria-hidden="true">${'> '}</span><code>${e.command}</code>
            <small class="hint">${e.at.toLocaleTimeString()}${e.state === 'sending' ? ' · sending…' : ''}</small></div>
          ${e.result
            ? html`<pre class="console-reply">${e.result.response.length ? `${e.result.response.join('\n')}\n` : ''}${e.result.timed_out ? 'No answer within 30 s: it may still run.' : e.result.ok ? 'ok' : 'The firmware reported an error.'}</pre>`
            : null}
          ${e.error ? html`<p class="console-error">${e.error}</p>` : null}
        </li>`,
      )}
    </ol>
    <form class="console-form" onSubmit=${(ev: Event) => { ev.preventDefault(); void send(text); }}>
      <label for="console-input">G-code command</label>
      <div class="row">
        <input id="console-input" type="text" autocomplete="off" spellcheck=${false} value=${text} maxlength="256"
          placeholder="M105" disabled=${disabledWhy !== null}
          aria-describedby=${['console-hint', willBeRefused ? 'console-refusal' : ''].filter(Boolean).join(' ')}
          onInput=${(ev: Event) => setText((ev.target as HTMLInputElement).value)} onKeyDown=${onKey} />
        <${Button} type="submit" kind="primary" disabled=${disabledWhy !== null || !text.trim()}>Send<//>
        <${Button} label="Send M105: read temperatures" disabled=${disabledWhy !== null} onClick=${() => send('M105')}>M105<//>
        <${Button} label="Send M114: read position" disabled=${disabledWhy !== null} onClick=${() => send('M114')}>M114<//>
      </div>
      <small id="console-hint" class="hint">${disabledWhy ?? 'One command per line; the up and down arrows recall earlier commands.'}</small>
      ${willBeRefused ? html`<small id="console-refusal" class="hint warn">${upper} is not on the list allowed while printing: the server will refuse it.</small>` : null}
    </form>
  </section>`;
}
