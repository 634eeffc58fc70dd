// Carries events between nodes: committed ones as a nudge to read the log ('events'), live-only ones as the data ('live').
import { randomUUID } from 'node:crypto';
import type { ClusterBus } from '../cluster/cluster-bus.js';
import type { Logger } from '../logger.js';
import type { CommittedFeed } from './committed-feed.js';
import type { RecordSubscriber } from './event-outbox.js';
import type { PublicEvent } from './public-event.js';

const CHASE_EVERY_MS = 20;
const CHASE_GIVE_UP_MS = 5000;

/**
 * The log stays the data: a signal carries only the newest seq, and each node's feed reads past its own last seq, so a
 * lost signal delays an event (until the feed's safety poll) and never loses it; Last-Event-ID resumes from the log.
 * Returns the in-transaction subscriber that notes this node's seqs, and the function that stops the relay.
 */
export function relayEventsBetweenNodes(feed: CommittedFeed, cluster: ClusterBus, logger: Logger): { noteRecorded: RecordSubscriber; stop: () => void } {
  // Seqs this node wrote and has not yet seen committed (with when they were written): only those are announced, so a
  // node never echoes another's signal.
  const mine = new Map<number, number>();
  let chase: NodeJS.Timeout | null = null;
  const offFeed = feed.subscribe((rows) => {
    const top = rows[rows.length - 1]?.seq;
    if (top === undefined) return;
    let ours = false;
    for (const row of rows) if (mine.delete(row.seq)) ours = true;
    // Seqs commit in order (EngineSql.lockEventOrder): one of ours below `top` still unseen was rolled back.
    for (const seq of mine.keys()) if (seq < top) mine.delete(seq);
    if (ours) cluster.publish('events', String(top)).catch((err: unknown) => logger.warn('events: cannot signal the other nodes', { error: (err as Error).message }));
  });
  // record() pokes the feed from inside the transaction; on a pool that read can run before the commit. Until our seqs
  // are seen, poke again shortly, so the other nodes hear of them in milliseconds rather than at the safety poll.
  // A seq unseen for CHASE_GIVE_UP_MS was rolled back with nothing after it: the safety poll is enough from there.
  const chaseTick = (): void => {
    chase = null;
    const cutoff = Date.now() - CHASE_GIVE_UP_MS;
    for (const [seq, at] of mine) if (at < cutoff) mine.delete(seq);
    if (mine.size === 0) return;
    feed.poke();
    chase = setTimeout(chaseTick, CHASE_EVERY_MS).unref();
  };
  const offBus = cluster.subscribe('events', () => feed.poke());
  return {
    noteRecorded: async (_trx, event) => {
      mine.set(event.seq, Date.now());
      chase ??= setTimeout(chaseTick, CHASE_EVERY_MS).unref();
    },
    stop() {
      if (chase) clearTimeout(chase);
      offFeed();
      offBus();
    },
  };
}

/**
 * Live-only events cross to the other nodes as the payload itself (they are never stored). Each runtime tags what it
 * sends, so the copy the bus hands back to this node is dropped instead of streamed twice. An event too large for a
 * signal stays on this node (logged once), never breaking the sender.
 */
export function relayLiveBetweenNodes(cluster: ClusterBus, logger: Logger, onRemote: (event: PublicEvent) => void): { send: (event: PublicEvent) => void; stop: () => void } {
  const self = randomUUID();
  let warned = false;
  const off = cluster.subscribe('live', (payload) => {
    try {
      const msg = JSON.parse(payload) as { from?: string; event?: PublicEvent };
      if (msg.from !== self && msg.event) onRemote(msg.event);
    } catch {
      logger.warn('events: dropped a malformed live signal from another node');
    }
  });
  return {
    send(event) {
      cluster.publish('live', JSON.stringify({ from: self, event })).catch((err: unknown) => {
        if (warned) return;
        warned = true;
        logger.warn('events: a live event could not be sent to the other nodes', { type: event.type, error: (err as Error).message });
      });
    },
    stop: off,
  };
}
