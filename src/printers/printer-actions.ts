// POST /v1/printers/:id/actions: maps each action onto the live session; answers once the command was accepted, not done.
import type { PrinterLink } from './printer-link.js';
import { printerBusy, printerOffline } from './printer-state.js';
import type { PrinterRecord } from './printer-record.js';
import type { PrinterAction } from './printers.schemas.js';
import type { PrintersService } from './printers.service.js';

/**
 * Runs a session command and waits one turn of the event loop: a refusal (wrong state, offline) surfaces at once and
 * becomes the error response, while a long command (homing, heating, parking) goes on after the 202; a later failure
 * is logged (and the session reports it through its status and events).
 */
async function whenAccepted(session: PrinterLink, run: () => unknown, onLateError: (err: Error) => void): Promise<void> {
  let early = true;
  let refused: Error | null = null;
  const started = (async () => run())();
  started.catch((err: Error) => {
    if (early) refused = err;
    else onLateError(err);
  });
  // A session in a worker thread takes its turn there: the refusal and the state after it come back with the turn.
  await (session.turn ? session.turn().catch(() => undefined) : new Promise<void>((resolve) => setImmediate(resolve)));
  early = false;
  if (refused) throw refused;
}

/** Actions that need a live link; the others (ready, connect, disconnect) also make sense while offline. */
const NEEDS_LINK: ReadonlySet<PrinterAction> = new Set(['pause', 'resume', 'cancel', 'home', 'cooldown', 'emergency_stop']);

/** Actions the session runs as commands; ready and disconnect are handled before (they need no acceptance turn). */
type SessionCommand = Exclude<PrinterAction, 'ready' | 'disconnect'>;

function sessionCall(session: PrinterLink, action: SessionCommand): () => unknown {
  switch (action) {
    case 'pause':
      return () => session.pause();
    case 'resume':
      return () => session.resume();
    case 'cancel':
      return () => session.cancel();
    case 'home':
      return () => session.home();
    case 'cooldown':
      return () => session.cooldown();
    case 'emergency_stop':
      return () => session.emergencyStop();
    case 'connect':
      // Resolves when the printer is idle; failures are retried by the session, so only a refusal matters here.
      return () => {
        session.connect().catch(() => undefined);
      };
  }
}

/**
 * Errors: printer_offline for a job or motion action without a link; printer_busy for ready, disconnect and home while
 * a job is printing or paused; invalid_state when the action does not fit (resume when not paused, pause when idle).
 */
export async function runPrinterAction(svc: PrintersService, id: string, action: PrinterAction): Promise<PrinterRecord> {
  const row = await svc.requireRow(id);
  // A stored printer always has a session, except when opening it failed at start; connect tries again.
  const session = action === 'connect' && !svc.session(id) ? svc.openSession(row) : svc.session(id);
  const status = session?.currentStatus ?? 'offline';
  if (NEEDS_LINK.has(action) && (!session || status === 'offline' || status === 'connecting')) throw printerOffline(id, status);
  if ((action === 'ready' || action === 'disconnect') && (status === 'printing' || status === 'paused')) throw printerBusy(id, status);
  if (action === 'ready') {
    await svc.setReady(id, true);
  } else if (action === 'disconnect') {
    // Closing a link is quick and the answer should show the printer offline: wait for it.
    await session?.disconnect();
  } else if (session) {
    // connect is also the retry of a printer held for refused starts (connected or not: it is offered jobs again).
    if (action === 'connect') await svc.liftStartRefusal(id, 'action connect');
    const log = (err: Error): void => svc.deps.logger.warn('printer action failed after it was accepted', { printer_id: id, action, error: err });
    await whenAccepted(session, sessionCall(session, action), log);
  }
  return svc.get(id);
}
