// The printer's control buttons: each action enabled only when it makes sense now, else disabled with the reason in words.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction } from '../lib/hooks.js';
import { ConfirmButton, ErrorNote, Notice } from '../components/ui.js';
import { ACTION_DONE, actionBlocked, type PrinterAction } from './printer-actions.js';
import type { Printer } from './printer-types.js';

interface Props {
  printer: Printer;
  /** printers:write; without it every button is disabled with that reason. */
  canWrite: boolean;
  /** The printer as the 202 answer shows it. */
  onChanged: (p: Printer) => void;
}

/** The status an action ends in (the answer may still show the one before). */
const LEADS_TO: Partial<Record<PrinterAction, string>> = {
  pause: 'paused',
  resume: 'printing',
  cancel: 'idle',
  emergency_stop: 'error',
  connect: 'idle',
  disconnect: 'offline',
};

const LABEL: Record<PrinterAction, string> = {
  pause: 'Pause',
  resume: 'Resume',
  cancel: 'Cancel job',
  home: 'Home axes',
  cooldown: 'Cool down',
  ready: 'Bed cleared',
  emergency_stop: 'Emergency stop',
  connect: 'Connect',
  disconnect: 'Disconnect',
};

export function PrinterControls({ printer, canWrite, onChanged }: Props) {
  const [done, setDone] = useState<{ action: PrinterAction; answered: string } | null>(null);
  const [running, setRunning] = useState<PrinterAction | null>(null);
  const action = useAction(async (name: PrinterAction) => {
    setDone(null);
    setRunning(name);
    try {
      const p = await api.post<Printer>(`/v1/printers/${encodeURIComponent(printer.id)}/actions`, { action: name });
      onChanged(p);
      setDone({ action: name, answered: p.status });
    } finally {
      setRunning(null);
    }
  });

  // The confirmation of the last action goes stale once the printer moves to a state the action did not lead to.
  useEffect(() => {
    if (done && printer.status !== done.answered && printer.status !== LEADS_TO[done.action]) setDone(null);
  }, [printer.status]);

  const reason = (name: PrinterAction): string | null =>
    canWrite ? actionBlocked(name, printer) : 'Your sign-in may only look at printers (it lacks printers:write).';

  const one = (name: PrinterAction, kind: 'primary' | 'secondary' = 'secondary') => {
    const why = reason(name);
    const id = `action-${name}`;
    return html`<li>
      <button id=${id} type="button" class=${`btn ${kind}`} disabled=${why !== null || action.busy}
        aria-busy=${running === name ? 'true' : undefined} aria-describedby=${why ? `${id}-why` : undefined}
        onClick=${() => action.run(name)}>${running === name ? html`<span class="spinner" aria-hidden="true"></span>` : null}${LABEL[name]}</button>
      ${why ? html`<small id=${`${id}-why`} class="hint">${why}</small>` : null}
    </li>`;
  };

  const confirmed = (name: 'cancel' | 'emergency_stop', title: string, message: string, confirmText: string) => {
    const why = reason(name);
    const id = `action-${name}`;
    return html`
      <${ConfirmButton} id=${id} kind="danger" title=${title} message=${message} confirmText=${confirmText}
        busy=${running === name} disabled=${why !== null || action.busy} onConfirm=${() => action.run(name)}>${LABEL[name]}<//>
      ${why ? html`<small class="hint">${why}</small>` : null}`;
  };

  return html`<section class="card printer-controls" aria-labelledby="controls-title">
    <h2 id="controls-title">Controls</h2>
    <ul class="action-list">
      ${one('pause')} ${one('resume', 'primary')}
      <li>${confirmed('cancel', 'Cancel this print?', 'The printer drops the rest of the job and runs its cancel script (heaters off, head parked). The job ends as cancelled and cannot be resumed.', 'Cancel the print')}</li>
      ${one('home')} ${one('cooldown')}
      ${!printer.ready ? one('ready', 'primary') : null}
      ${one('connect')} ${one('disconnect')}
    </ul>
    <div class="estop">
      ${confirmed(
        'emergency_stop',
        '⚠ Emergency stop?',
        'Sends M112: the printer halts at once, heaters off, mid-move. The running job fails and cannot be resumed. The printer stays in error until you reconnect it (Connect), and may need homing afterwards. Use it only when something is going wrong.',
        'Stop the printer now',
      )}
    </div>
    <div aria-live="polite">${done ? html`<${Notice} kind="success">${ACTION_DONE[done.action]}<//>` : null}</div>
    <${ErrorNote} error=${action.error} onDismiss=${action.clearError} />
  </section>`;
}
