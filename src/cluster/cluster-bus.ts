// Signals between the nodes sharing one database (issue 20): "a job was queued", "events were committed". A signal is
// a nudge to look at the database, so a lost one delays work and loses nothing; only 'printers' and 'live' carry data,
// and that data is live state a newer signal replaces.
export type ClusterChannel =
  /** A job was queued, re-queued or freed: every node's scheduler looks at its own printers. */
  | 'jobs'
  /** Events were committed to the log: every node reads the log past its last seen seq (payload: the newest seq). */
  | 'events'
  /** Webhook deliveries became due: any node may claim them. */
  | 'deliveries'
  /** The node list changed (a node joined, stopped or was marked lost). */
  | 'nodes'
  /** A printer's live state on the node owning it (payload: the snapshot as JSON, throttled to ~1 per second per printer). */
  | 'printers'
  /**
   * Live-only events (printer.telemetry, job.progress) of this node's printers for the other nodes' streams: the one
   * payload is the event itself (never stored, so nothing to read back), throttled and small; a lost one is skipped.
   */
  | 'live';

/**
 * Every channel, and whether its payload is a nudge (look at the database; after missed signals every listener gets an
 * empty one) or live data (a missed one is simply skipped). A Record, so a new channel cannot be left out of a bus.
 */
export const CLUSTER_CHANNELS: Readonly<Record<ClusterChannel, 'nudge' | 'data'>> = {
  jobs: 'nudge',
  events: 'nudge',
  deliveries: 'nudge',
  nodes: 'nudge',
  printers: 'data',
  live: 'data',
};

export type ClusterListener = (payload: string) => void;

export interface ClusterBus {
  /** Tells every node (this one included) on `channel`; `payload` is short text (PostgreSQL NOTIFY allows < 8000 bytes). */
  publish(channel: ClusterChannel, payload?: string): Promise<void>;
  /** Returns the unsubscribe function. */
  subscribe(channel: ClusterChannel, listener: ClusterListener): () => void;
  /** Stops listening; publish after close is a no-op. */
  close(): Promise<void>;
}

/** The listeners of each channel, as every bus keeps them; a listener that throws is reported and the others still run. */
export class ChannelListeners {
  private readonly byChannel = new Map<ClusterChannel, Set<ClusterListener>>();

  add(channel: ClusterChannel, listener: ClusterListener): () => void {
    let set = this.byChannel.get(channel);
    if (!set) this.byChannel.set(channel, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Calls the channel's listeners as they are now (one that unsubscribes meanwhile is not called). */
  deliver(channel: ClusterChannel, payload: string, onError: (err: unknown) => void): void {
    for (const l of [...(this.byChannel.get(channel) ?? [])]) {
      try {
        l(payload);
      } catch (err) {
        onError(err);
      }
    }
  }

  clear(): void {
    this.byChannel.clear();
  }
}

/** One node alone (SQLite, or tests): signals go straight to this process's listeners, after the current tick. */
export class LocalClusterBus implements ClusterBus {
  private readonly listeners = new ChannelListeners();
  private closed = false;

  async publish(channel: ClusterChannel, payload = ''): Promise<void> {
    if (this.closed) return;
    // Asynchronous like a NOTIFY delivered after commit, so a caller never runs listeners inside its own transaction.
    // A throwing listener surfaces as an uncaught error, as it would from an event emitter.
    setImmediate(() => this.listeners.deliver(channel, payload, (err) => setImmediate(() => { throw err; })));
  }

  subscribe(channel: ClusterChannel, listener: ClusterListener): () => void {
    return this.listeners.add(channel, listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
  }
}
