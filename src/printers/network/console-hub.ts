// A network printer's console listeners, and the one shape of a console line every kind takes.
import { badRequest } from '../../errors.js';
import type { ConsoleEntry } from '../session-context.js';

export class ConsoleHub {
  private readonly listeners = new Set<(e: ConsoleEntry) => void>();

  on(listener: (e: ConsoleEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(direction: ConsoleEntry['direction'], kind: ConsoleEntry['kind'], text: string): void {
    for (const l of this.listeners) {
      try {
        l({ direction, kind, text });
      } catch {
        // A console view must not break the link.
      }
    }
  }
}

/**
 * What a console line asks: nothing (blank or a comment), an emergency stop, or one command. `stripComment`: a
 * trailing `; …` is cut off (the printer would echo it otherwise). Throws on a line break: one command at a time.
 */
export function consoleLine(text: string, stripComment: boolean): { kind: 'none' } | { kind: 'estop' } | { kind: 'command'; command: string } {
  if (/[\r\n]/.test(text)) throw badRequest('one command at a time: the text contains a line break');
  const command = (stripComment ? text.replace(/;.*$/, '') : text).trim();
  if (command === '' || command.startsWith(';')) return { kind: 'none' };
  if (/^M112(\s|$)/i.test(command)) return { kind: 'estop' };
  return { kind: 'command', command };
}
