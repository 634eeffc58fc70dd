// What transport tests share: a recorder for everything a transport reports, and a bounded poll.
import { setTimeout as sleep } from 'node:timers/promises';
import type { TransportHandlers } from '../../src/transport/transport.js';

/** Records everything a transport reports. */
export function recorder() {
  const lines: string[] = [];
  const closes: Array<Error | null> = [];
  let drains = 0;
  const handlers: TransportHandlers = {
    onLine: (l) => lines.push(l),
    onDrain: () => {
      drains++;
    },
    onClose: (e) => closes.push(e),
  };
  return { lines, closes, handlers, drains: () => drains };
}

/** Polls until `cond` holds; the limit only stops a broken test from hanging, it is not a speed assertion. */
export async function waitFor(cond: () => boolean, what: string, limitMs = 20_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await sleep(5);
  }
}
