// POST /v1/printers/:id/commands: console lines sent in order with their replies; while a job runs only harmless ones pass.
import { AppError, badRequest } from '../errors.js';
import { stripGcodeLine } from '../protocol/framing.js';
import type { CommandReply } from './printer-state.js';
import { printerOffline } from './printer-state.js';
import type { PrintersService } from './printers.service.js';

/**
 * Allowed while printing or paused: reports (temperatures, position, firmware, endstops, SD progress, print time), a
 * display message, feed rate and flow overrides, and the emergency stop. Anything that moves or heats would fight the job.
 */
export const SAFE_WHILE_PRINTING: readonly string[] = ['M105', 'M114', 'M115', 'M117', 'M119', 'M220', 'M221', 'M27', 'M31', 'M112'];

export const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;

export interface CommandResult {
  command: string;
  ok: boolean;
  /** The printer's reply lines before its ok (or error). */
  response: string[];
  /** No answer in time: the command may still run; later commands were not sent. */
  timed_out?: boolean;
}

/** "M105", "G1"...: the command word, letter upper-cased and leading zeros dropped (M0105 is M105 to the firmware). */
export function commandWord(text: string): string {
  const word = stripGcodeLine(text).split(/\s+/)[0] ?? '';
  const m = /^([A-Za-z])0*(\d+)/.exec(word);
  return m ? `${m[1]!.toUpperCase()}${m[2]}` : word.toUpperCase();
}

function withTimeout(p: Promise<CommandReply>, ms: number): Promise<CommandReply | null> {
  let timer: NodeJS.Timeout | undefined;
  const guarded = p.finally(() => clearTimeout(timer));
  // A failure after the timeout has nobody left to tell (the link going away is reported by the session).
  guarded.catch(() => undefined);
  return Promise.race([
    guarded,
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), ms);
    }),
  ]);
}

export async function runPrinterCommands(svc: PrintersService, id: string, commands: readonly string[]): Promise<CommandResult[]> {
  await svc.requireRow(id);
  commands.forEach((c, i) => {
    if (/[\r\n]/.test(c)) throw badRequest(`commands[${i}]: one command per entry (the text contains a line break)`);
    if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(c)) throw badRequest(`commands[${i}]: must not contain control characters`);
  });
  const session = svc.session(id);
  const status = session?.currentStatus ?? 'offline';
  if (!session || status === 'offline' || status === 'connecting') throw printerOffline(id, status);
  if (status === 'printing' || status === 'paused') {
    commands.forEach((c, i) => {
      const word = commandWord(c);
      if (word !== '' && !SAFE_WHILE_PRINTING.includes(word)) {
        throw new AppError(409, 'printer_busy', `commands[${i}]: ${word} is not allowed while a job is ${status}`, `allowed now: ${SAFE_WHILE_PRINTING.join(', ')}`);
      }
    });
  }
  const timeoutMs = svc.deps.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const results: CommandResult[] = [];
  for (const command of commands) {
    const reply = await withTimeout(session.sendCommand(command), timeoutMs);
    if (reply === null) {
      results.push({ command, ok: false, response: [], timed_out: true });
      break;
    }
    results.push({ command, ok: reply.ok, response: reply.lines });
  }
  return results;
}
