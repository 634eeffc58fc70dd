// A webhook receiver that answers every request after a pause and counts how many it was answering at once (the most,
// over its life), with each request's X-Webhook-Id and X-Webhook-Sequence in arrival order.
import http from 'node:http';
import { listenOnLoopback } from './webhook-harness.js';

export interface CountingReceiver {
  url: string;
  /** The most requests open at the same moment. */
  readonly maxParallel: number;
  /** Arrivals in order. */
  readonly arrivals: Array<{ webhookId: string; sequence: number }>;
  close(): Promise<void>;
}

export async function startCountingReceiver(answerAfterMs: number): Promise<CountingReceiver> {
  let open = 0;
  const r = { url: '', maxParallel: 0, arrivals: [] as CountingReceiver['arrivals'], close: async () => undefined };
  const server = http.createServer((req, res) => {
    open++;
    r.maxParallel = Math.max(r.maxParallel, open);
    r.arrivals.push({ webhookId: String(req.headers['x-webhook-id']), sequence: Number(req.headers['x-webhook-sequence']) });
    let counted = true;
    // Ends once, whether answered or cut off (a sender killed mid-request).
    const end = (): void => {
      if (counted) open--;
      counted = false;
    };
    res.on('close', end);
    req.resume();
    setTimeout(() => res.writeHead(204).end(), answerAfterMs);
  });
  return Object.assign(r, await listenOnLoopback(server));
}
