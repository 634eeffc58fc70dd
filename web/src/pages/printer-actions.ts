// Which printer actions make sense in which state (the API reference, POST /v1/printers/:id/actions), with the reason when not.
import type { Printer } from './printer-types.js';

export type PrinterAction = 'pause' | 'resume' | 'cancel' | 'home' | 'cooldown' | 'ready' | 'emergency_stop' | 'connect' | 'disconnect';

/** null when the action may be sent now, else a sentence saying why not (shown next to the disabled button). */
export function actionBlocked(action: PrinterAction, p: Printer): string | null {
  const linked = p.status !== 'offline';
  const running = p.status === 'printing' || p.status === 'paused';
  const noLink = p.connecting ? 'The printer is still connecting.' : 'The printer is offline: connect it first.';
  const external = p.current_job === null && p.external_job ? 'The print was started on the printer itself: control it there.' : null;
  switch (action) {
    case 'pause':
      if (external) return external;
      return p.status === 'printing' ? null : p.status === 'paused' ? 'The job is already paused.' : 'Nothing is printing.';
    case 'resume':
      if (external) return external;
      return p.status === 'paused' ? null : p.status === 'printing' ? 'The job is printing, not paused.' : 'No job is paused.';
    case 'cancel':
      if (external) return external;
      return running ? null : 'No job is printing or paused.';
    case 'home':
      if (!linked) return noLink;
      if (running) return 'Not while a job is printing or paused.';
      return p.status === 'error' ? 'The printer is in error: reconnect it first.' : null;
    case 'cooldown':
      if (!linked) return noLink;
      return p.status === 'printing' ? 'Not while printing: pause or cancel the job first.' : null;
    case 'ready':
      if (p.ready) return 'The bed is already marked clear.';
      return running ? 'Not while a job is printing or paused.' : null;
    case 'emergency_stop':
      return linked ? null : noLink;
    case 'connect':
      if (p.connecting) return 'The printer is connecting now.';
      return p.status === 'offline' || p.status === 'error' ? null : 'The printer is connected.';
    case 'disconnect':
      if (running) return 'Not while a job is printing or paused: cancel it first.';
      return p.status === 'offline' && !p.connecting && p.error === null ? 'The printer is already disconnected.' : null;
  }
}

/** What the user is told after each action was accepted (the record and the events show the rest). */
export const ACTION_DONE: Record<PrinterAction, string> = {
  pause: 'Pausing: the printer finishes its queued moves and parks the head.',
  resume: 'Resuming: the printer reheats, returns to the saved position and continues.',
  cancel: 'Cancelled: the printer runs its cancel script (heaters off, head parked).',
  home: 'Homing all axes (G28).',
  cooldown: 'Heaters and fans are off.',
  ready: 'The bed is marked clear: the printer can take the next job.',
  emergency_stop: 'Emergency stop sent. The printer has halted; the job failed. Check the printer, then press Connect to reconnect it.',
  connect: 'Connecting to the printer…',
  disconnect: 'Disconnected. The server will not reconnect until you press Connect.',
};
