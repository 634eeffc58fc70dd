// Carries the event log between nodes: this node's committed events nudge every node ('events'), a nudge makes the feed read the log.
import type { ClusterBus } from '../cluster/cluster-bus.js';
import type { Logger } from '../logger.js';
import type { CommittedFeed } from './committed-feed.js';
import type { RecordSubscriber } from './event-outbox.js';

/**
 * The log stays the data: a signal carries only the newest seq, and each node's feed reads past its own last seq, so a
 * lost signal delays an event (until the feed's safety poll) and never loses it; Last-Event-ID resumes from the log.
 * Returns the in-transaction subscriber that notes this node's seqs, and the function that stops the relay.
 */
export function relayEventsBetweenNodes(feed: CommittedFeed, cluster: ClusterBus, logger: Logger): { noteRecorded: RecordSubscriber; stop: () => void } {
  // Seqs this node wrote and has not yet seen committed: only those are announced, so a node never echoes another's signal.
  const mine = new Set<number>();
  const offFeed = feed.subscribe((rows) => {
    const top = rows[rows.length - 1]?.seq;
    if (top === undefined) return;
    let ours = false;
    for (const row of rows) if (mine.delete(row.seq)) ours = true;
    // Seqs commit in order (EngineSql.lockEventOrder): one of ours below `top` still unseen was rolled back.
    for (const seq of mine) if (seq < top) mine.delete(seq);
    if (ours) cluster.publish('events', String(top)).catch((err: unknown) => logger.warn('events: cannot signal the other nodes', { error: (err as Error).message }));
  });
  const offBus = cluster.subscribe('events', () => feed.poke());
  return {
    noteRecorded: async (_trx, event) => void mine.add(event.seq),
    stop() {
      offFeed();
      offBus();
    },
  };
}
