// One test app's view of a ClusterBus shared by several apps (nodes of one farm in one process): publishing goes to the
// shared bus, and closing the view drops only this app's listeners, as a node's process ending drops its LISTEN. Without
// it a stopped app's listeners kept hearing the others and queried its closed database.
import type { ClusterBus, ClusterChannel, ClusterListener } from '../../src/cluster/cluster-bus.js';

export function scopedClusterBus(shared: ClusterBus): ClusterBus {
  const offs = new Set<() => void>();
  let closed = false;
  return {
    // A stopping app still tells the others (its node 'stopped', say) after its own listeners are gone.
    publish: (channel: ClusterChannel, payload?: string) => shared.publish(channel, payload),
    subscribe(channel: ClusterChannel, listener: ClusterListener) {
      if (closed) return () => undefined;
      const off = shared.subscribe(channel, listener);
      offs.add(off);
      return () => {
        offs.delete(off);
        off();
      };
    },
    async close() {
      closed = true;
      for (const off of offs) off();
      offs.clear();
    },
  };
}
