// A printer held for refused job starts: what it said, that no job goes to it, and the Retry button (action connect).
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction } from '../lib/hooks.js';
import type { Printer } from '../pages/printer-types.js';
import { Button, ErrorNote } from './ui.js';
import '../styles/start-refusal.css';

export interface StartRefusedProps {
  printer: Printer;
  /** May the viewer retry (printers:write)? Without it, or on the wall, the words only. */
  canAct: boolean;
  onChanged?: (p: Printer) => void;
}

export function StartRefused({ printer: p, canAct, onChanged }: StartRefusedProps) {
  const retry = useAction(async () => {
    const next = await api.post<Printer>(`/v1/printers/${encodeURIComponent(p.id)}/actions`, { action: 'connect' });
    onChanged?.(next);
  });
  const refusal = p.start_refusal;
  if (!refusal) return null;
  return html`<div class="start-refused" role="status">
    <p class="warn-line"><span aria-hidden="true">⚠ </span>Refused the last ${refusal.attempts} job starts: no job is sent to it.</p>
    <p class="start-refused-message" title=${refusal.message}>${refusal.message}</p>
    ${canAct
      ? html`<${Button} kind="primary" busy=${retry.busy} onClick=${() => retry.run()} label=${`Retry ${p.name}`}>Retry<//>
          <${ErrorNote} error=${retry.error} onDismiss=${retry.clearError} />`
      : null}
  </div>`;
}
