// This node's life among the nodes sharing the database: registers at start, beats every heartbeatMs, watches the
// others' beats and marks a silent one lost (one node wins that), notices when it was itself marked lost and is back,
// and says 'stopped' on a clean stop. What a lost node means for jobs and printers is node-lost.service.ts's.
import { performance } from 'node:perf_hooks';
import { isoTime, type Clock } from '../clock.js';
import type { ClusterBus } from '../cluster/cluster-bus.js';
import type { Logger } from '../logger.js';
import type { Db } from '../storage/db.js';
import type { NodeIdentity } from './node-identity.js';
import { adoptUnownedPrinters, beat, listNodes, markLostIf, setNodeState, setPinnedWaitingReason, upsertNode } from './nodes.repository.js';
import { NodeWatch } from './node-watch.js';

export const DEFAULT_HEARTBEAT_MS = 5_000;
export const DEFAULT_LOST_AFTER_MS = 30_000;

export interface NodeTuning {
  /** How often this node beats and looks at the others (default 5 s). */
  heartbeatMs?: number;
  /** Silence after which another node is lost (default 30 s). */
  lostAfterMs?: number;
}

export interface NodeRuntimeDeps extends NodeTuning {
  db: Db;
  clock: Clock;
  logger: Logger;
  node: NodeIdentity;
  version: string;
  cluster: ClusterBus;
  /** Monotonic milliseconds (performance.now by default): silence is measured on it, never on the wall clock. */
  monotonic?: () => number;
  /** This node won the right to handle `nodeId`'s loss. */
  onNodeLost(nodeId: string): Promise<void>;
  /** This node had been marked lost by another and beats again: it takes back what is still its. */
  onSelfBack(): Promise<void>;
  /** The node list or printer ownership changed (signal 'nodes', and every heartbeat): open the printers now ours, look at the queue. */
  onNodesChanged(): Promise<void>;
}

export class NodeRuntime {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private stopped = false;
  private readonly watch: NodeWatch;
  private offSignal: (() => void) | null = null;

  constructor(private readonly d: NodeRuntimeDeps) {
    this.watch = new NodeWatch(d.node.id, d.lostAfterMs ?? DEFAULT_LOST_AFTER_MS);
  }

  get id(): string {
    return this.d.node.id;
  }

  /** Registers this node (online) and takes printers no node owns yet; call before the farm and the sessions start. */
  async start(): Promise<void> {
    const now = isoTime(this.d.clock.now());
    await upsertNode(this.d.db, { id: this.d.node.id, name: this.d.node.name, address: this.d.node.address, version: this.d.version, now });
    // Started again after being lost: the jobs waiting for it wait no more (its scheduler gives them their reasons).
    await setPinnedWaitingReason(this.d.db, this.d.node.id, null);
    const adopted = await adoptUnownedPrinters(this.d.db, this.d.node.id);
    if (adopted > 0) this.d.logger.info('printers without a node now belong to this node', { printers: adopted });
    this.offSignal = this.d.cluster.subscribe('nodes', () => this.guard(this.d.onNodesChanged(), 'could not follow a change of nodes'));
    await this.d.cluster.publish('nodes', this.d.node.id);
    this.schedule();
  }

  /** A clean stop: no more beats, and the others see 'stopped' rather than waiting to call it lost. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.offSignal?.();
    await this.ticking;
    await setNodeState(this.d.db, this.d.node.id, 'stopped', isoTime(this.d.clock.now())).catch((err: Error) =>
      this.d.logger.error('could not mark this node stopped', { error: err }),
    );
    await this.d.cluster.publish('nodes', this.d.node.id);
  }

  /** One beat and one look at the others, now (the timer calls it; tests may too). */
  async tick(): Promise<void> {
    const d = this.d;
    const was = await beat(d.db, d.node.id, isoTime(d.clock.now()));
    if (was === 'lost') {
      d.logger.warn('this node had been marked lost by another; it is back online');
      await d.onSelfBack();
      await d.cluster.publish('nodes', d.node.id);
    }
    // The periodic look behind the signals: a lost or missed signal delays, never loses, a printer or a job.
    await d.onNodesChanged();
    const silent = this.watch.observe(await listNodes(d.db), (d.monotonic ?? performance.now.bind(performance))());
    for (const s of silent) {
      if (!(await markLostIf(d.db, s.id, s.beats, isoTime(d.clock.now())))) continue;
      d.logger.warn('node lost: no heartbeat', { node_id: s.id, silent_ms: d.lostAfterMs ?? DEFAULT_LOST_AFTER_MS });
      await d.onNodeLost(s.id);
      await d.cluster.publish('nodes', s.id);
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.ticking = this.guard(this.tick(), 'heartbeat failed').finally(() => {
        this.ticking = null;
        this.schedule();
      });
    }, this.d.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
    this.timer.unref();
  }

  private guard(p: Promise<unknown>, what: string): Promise<void> {
    return p.then(
      () => undefined,
      (err: Error) => this.d.logger.error(what, { error: err }),
    );
  }
}
