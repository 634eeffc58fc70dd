// A webhook receiver for the several-boxes test that knows which node sends each request (it reads the delivery's
// lease from the farm's database as the request arrives): it keeps the first request sent by a chosen node open,
// so that node holds a delivery in flight, and answers every other at once, noting when each came and from whom.
import http from 'node:http';
import pg from 'pg';
import { listenOnLoopback } from '../webhooks/webhook-harness.js';

export interface Arrival {
  webhookId: string;
  sequence: number;
  /** The node holding the delivery's lease when the request arrived. */
  node: string | null;
  /** The lease's end then (Unix ms), and when the request came (Date.now()). */
  leaseEndMs: number | null;
  atMs: number;
}

export interface LeaseCatcher {
  url: string;
  arrivals: Arrival[];
  /** The request kept open (sent by `holdFrom`), once one came. */
  caught: Arrival | null;
  /** Keep open the first request sent by this node from now on. */
  holdFrom: string | null;
  close(): Promise<void>;
}

export async function startLeaseCatcher(databaseUrl: string): Promise<LeaseCatcher> {
  const db = new pg.Client({ connectionString: databaseUrl });
  db.on('error', () => undefined);
  await db.connect();
  const c = { url: '', arrivals: [] as Arrival[], caught: null as Arrival | null, holdFrom: null as string | null, close: async () => undefined };
  const server = http.createServer((req, res) => {
    req.resume();
    const atMs = Date.now();
    const webhookId = String(req.headers['x-webhook-id']);
    const sequence = Number(req.headers['x-webhook-sequence']);
    void db
      .query<{ leased_by: string | null; next_attempt_ms: string | null }>('SELECT leased_by, next_attempt_ms FROM webhook_deliveries WHERE webhook_id = $1 AND seq = $2', [webhookId, sequence])
      .then(({ rows }) => {
        const row = rows[0];
        const arrival: Arrival = { webhookId, sequence, node: row?.leased_by ?? null, leaseEndMs: row?.next_attempt_ms == null ? null : Number(row.next_attempt_ms), atMs };
        c.arrivals.push(arrival);
        if (c.holdFrom !== null && arrival.node === c.holdFrom && !c.caught) {
          c.caught = arrival;
          return;
        }
        res.writeHead(204).end();
      })
      .catch(() => res.writeHead(500).end());
  });
  const listening = await listenOnLoopback(server);
  c.url = listening.url;
  c.close = async () => {
    await listening.close();
    await db.end();
  };
  return c;
}
