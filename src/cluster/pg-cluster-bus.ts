// ClusterBus over PostgreSQL LISTEN/NOTIFY: one dedicated connection listens, publishing goes through the shared pool.
import pg from 'pg';
import type { Logger } from '../logger.js';
import { ChannelListeners, CLUSTER_CHANNELS, type ClusterBus, type ClusterChannel, type ClusterListener } from './cluster-bus.js';

const CHANNELS = Object.keys(CLUSTER_CHANNELS) as ClusterChannel[];
/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; a signal is a nudge, so ours stay far below. */
export const MAX_PAYLOAD_BYTES = 7999;

export interface PgClusterBusOptions {
  /** Connection URL of the shared database (the listening connection is opened from it). */
  url: string;
  logger: Logger;
  /** Sends one NOTIFY; the caller passes the pool (kysely or pg) so publishing never waits for the listener. */
  notify: (channel: string, payload: string) => Promise<void>;
  /** First reconnect delay, doubled after each failure up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

/** The PostgreSQL channel name of a bus channel: prefixed so printfarm never collides with other users of the database. */
export function pgChannel(channel: ClusterChannel): string {
  return `printfarm_${channel}`;
}

export class PgClusterBus implements ClusterBus {
  private readonly listeners = new ChannelListeners();
  private client: pg.Client | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private backoff: number;
  /** Resolves once the first LISTEN is in place (or failed: then reconnecting runs in the background). */
  private readonly ready: Promise<void>;
  /** Counts (re)connections that reached LISTEN: tests and logs read it. */
  connections = 0;

  constructor(private readonly o: PgClusterBusOptions) {
    this.backoff = o.backoffMs ?? 250;
    this.ready = this.connect();
  }

  /** Waits until the listening connection is up the first time (a failure is logged and retried, never thrown). */
  async started(): Promise<void> {
    await this.ready;
  }

  async publish(channel: ClusterChannel, payload = ''): Promise<void> {
    if (this.closed) return;
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
      throw new Error(`cluster signal on '${channel}' is ${Buffer.byteLength(payload)} bytes; NOTIFY allows at most ${MAX_PAYLOAD_BYTES}`);
    }
    await this.o.notify(pgChannel(channel), payload);
  }

  subscribe(channel: ClusterChannel, listener: ClusterListener): () => void {
    return this.listeners.add(channel, listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.listeners.clear();
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => undefined);
  }

  private deliver(channel: ClusterChannel, payload: string): void {
    this.listeners.deliver(channel, payload, (err) => this.o.logger.error('cluster: a signal listener threw', { channel, error: err as Error }));
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.o.url });
    // A dropped connection (server restart, pg_terminate_backend, network) must not crash the node: reconnect instead.
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, null));
    client.on('notification', (n) => {
      const channel = CHANNELS.find((c) => pgChannel(c) === n.channel);
      if (channel) this.deliver(channel, n.payload ?? '');
    });
    try {
      await client.connect();
      for (const c of CHANNELS) await client.query(`LISTEN ${pgChannel(c)}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      this.o.logger.warn('cluster: cannot listen for signals, retrying', { error: (err as Error).message, retry_ms: this.backoff });
      this.scheduleReconnect();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.connections += 1;
    this.backoff = this.o.backoffMs ?? 250;
    // Signals sent while nobody listened are gone: every listener looks at the database once, as if nudged (the data
    // channels carry live state, not a nudge: missed samples are simply skipped until the next one).
    if (this.connections > 1) for (const c of CHANNELS) if (CLUSTER_CHANNELS[c] === 'nudge') this.deliver(c, '');
  }

  private lost(client: pg.Client, err: Error | null): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    client.end().catch(() => undefined);
    this.o.logger.warn('cluster: the signal connection dropped, reconnecting', { error: err?.message ?? 'ended' });
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) return;
    const delay = this.backoff;
    this.backoff = Math.min(this.backoff * 2, this.o.maxBackoffMs ?? 10_000);
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, delay);
    this.retry.unref();
  }
}
