// Live state of printers other nodes own: each node publishes its own printers' snapshots on the cluster bus (at most
// one per printer per interval, again now and then so a node started later learns them), and keeps the latest of others'.
import type { ClusterBus } from '../cluster/cluster-bus.js';
import type { Db } from '../storage/db.js';
import type { PrinterSnapshot } from './printer-state.js';
import type { SessionRegistry } from './session-registry.js';

/** NOTIFY carries under 8000 bytes; a snapshot over this loses its firmware capabilities, which no list shows. */
export const MAX_PAYLOAD_BYTES = 7900;

export interface RemotePrinterStatesOptions {
  /** How often own printers' changed snapshots go out (default 1 s: at most one per printer per second). */
  publishEveryMs?: number;
  /** An unchanged snapshot is sent again after this (default 5 s), so nodes that just started learn it. */
  republishAfterMs?: number;
  /** No snapshot from a printer's owner for this long: its state is unknown, shown offline (default 30 s). */
  staleAfterMs?: number;
}

export interface RemotePrinterStatesDeps {
  cluster: ClusterBus;
  sessions: SessionRegistry;
  db: Db;
  nodeId: string;
  /** Monotonic milliseconds (never another box's clock). */
  now?: () => number;
}

interface Received {
  node: string;
  snap: PrinterSnapshot;
  at: number;
}

interface Message {
  node: string;
  snap: PrinterSnapshot;
}

/** The payload for one snapshot, trimmed to fit a notification. */
export function encodeSnapshot(node: string, snap: PrinterSnapshot): string {
  const text = JSON.stringify({ node, snap } satisfies Message);
  if (Buffer.byteLength(text) <= MAX_PAYLOAD_BYTES) return text;
  const lean: PrinterSnapshot = { ...snap, firmware: snap.firmware ? { ...snap.firmware, capabilities: {} } : null, error: snap.error ? { code: snap.error.code, message: snap.error.message.slice(0, 500) } : null };
  return JSON.stringify({ node, snap: lean } satisfies Message);
}

export class RemotePrinterStates {
  private readonly received = new Map<string, Received>();
  /** Node id -> name and state, refreshed from the nodes table when a 'nodes' signal comes. */
  private nodes = new Map<string, { name: string; state: string }>();
  private readonly sent = new Map<string, { text: string; at: number }>();
  private readonly unsubscribe: Array<() => void> = [];
  private readonly changeListeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private readonly o: Required<RemotePrinterStatesOptions>;

  constructor(
    private readonly deps: RemotePrinterStatesDeps,
    options: RemotePrinterStatesOptions = {},
  ) {
    this.now = deps.now ?? (() => performance.now());
    this.o = { publishEveryMs: 1000, republishAfterMs: 5000, staleAfterMs: 30_000, ...options };
  }

  async start(): Promise<void> {
    if (this.timer) return;
    this.unsubscribe.push(this.deps.cluster.subscribe('printers', (payload) => this.receive(payload)));
    this.unsubscribe.push(this.deps.cluster.subscribe('nodes', () => void this.refreshNodes()));
    await this.refreshNodes();
    this.timer = setInterval(() => this.publishOwn(), this.o.publishEveryMs);
    this.timer.unref();
    this.publishOwn();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    for (const off of this.unsubscribe.splice(0)) off();
  }

  /**
   * What a printer owned by `owner` looks like from here: undefined when it is this node's own (or nobody's: a single
   * box), the owner's latest snapshot, or offline with reason node_unavailable when its owner is gone or silent.
   */
  snapshotFor(printerId: string, owner: string | null): PrinterSnapshot | null | undefined {
    if (owner === null || owner === this.deps.nodeId) return undefined;
    const node = this.nodes.get(owner);
    const got = this.received.get(printerId);
    const fresh = got && got.node === owner && this.now() - got.at <= this.o.staleAfterMs;
    if ((node && node.state !== 'online') || (got && !fresh)) {
      const why = node && node.state !== 'online' ? `is ${node.state}` : 'has sent no printer state lately';
      return unavailableSnapshot(printerId, got?.snap.url ?? '', `node "${node?.name ?? owner}" (${owner}) ${why}`);
    }
    return fresh ? got.snap : null;
  }

  /**
   * Called when another node's printer changes what a scheduler plans by (status, ready flag, current job): this
   * node's waiting reasons and forecast take it into account. Returns the unsubscribe function.
   */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** The job another node's printer runs, as its owner last published it (null: none, or its state is not fresh). */
  jobOf(printerId: string): PrinterSnapshot['job'] {
    const got = this.received.get(printerId);
    return got ? (this.snapshotFor(printerId, got.node)?.job ?? null) : null;
  }

  /** Printers of other nodes with a fresh state from an owner still online: their status (for the list's status filter). */
  liveStatuses(): Array<[string, PrinterSnapshot['status']]> {
    const out: Array<[string, PrinterSnapshot['status']]> = [];
    for (const [id, got] of this.received) {
      const snap = this.snapshotFor(id, got.node);
      if (snap) out.push([id, snap.status]);
    }
    return out;
  }

  private receive(payload: string): void {
    let msg: Message;
    try {
      msg = JSON.parse(payload) as Message;
    } catch {
      return;
    }
    if (!msg?.snap?.printer_id || typeof msg.node !== 'string' || msg.node === this.deps.nodeId) return;
    const before = this.received.get(msg.snap.printer_id)?.snap;
    this.received.set(msg.snap.printer_id, { node: msg.node, snap: msg.snap, at: this.now() });
    if (!before || before.status !== msg.snap.status || before.ready !== msg.snap.ready || before.job?.id !== msg.snap.job?.id) {
      for (const l of [...this.changeListeners]) l();
    }
  }

  private async refreshNodes(): Promise<void> {
    const rows = await this.deps.db.selectFrom('nodes').select(['id', 'name', 'state']).execute();
    this.nodes = new Map(rows.map((r) => [r.id, { name: r.name, state: r.state }]));
  }

  /** Own printers whose snapshot changed (or was last sent a while ago) go out; at most one per printer per tick. */
  private publishOwn(): void {
    const now = this.now();
    for (const session of this.deps.sessions.list()) {
      const snap = session.snapshot();
      const text = encodeSnapshot(this.deps.nodeId, snap);
      const last = this.sent.get(snap.printer_id);
      if (last && last.text === text && now - last.at < this.o.republishAfterMs) continue;
      this.sent.set(snap.printer_id, { text, at: now });
      void this.deps.cluster.publish('printers', text);
    }
  }
}

function unavailableSnapshot(printerId: string, url: string, message: string): PrinterSnapshot {
  return {
    printer_id: printerId,
    url,
    status: 'offline',
    firmware: null,
    temperatures: {},
    ready: true,
    job: null,
    error: { code: 'node_unavailable', message },
    offline_reason: 'node_unavailable',
  };
}
