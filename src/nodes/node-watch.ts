// Pure: which other nodes have been silent too long, judged only by their `beats` changing as seen on our own
// monotonic clock (two boxes' clocks are never compared).

export interface SeenNode {
  id: string;
  beats: number;
  state: 'online' | 'lost' | 'stopped';
}

export interface Silent {
  id: string;
  /** The beats we saw unchanged: the conditional update marks the node lost only if they still are. */
  beats: number;
}

export class NodeWatch {
  private readonly last = new Map<string, { beats: number; since: number; online: boolean }>();

  constructor(
    private readonly selfId: string,
    private readonly lostAfterMs: number,
  ) {}

  /** Feeds one reading of the nodes table at monotonic time `now`; returns the online nodes silent for lostAfterMs. */
  observe(nodes: readonly SeenNode[], now: number): Silent[] {
    const silent: Silent[] = [];
    const present = new Set<string>();
    for (const n of nodes) {
      if (n.id === this.selfId) continue;
      present.add(n.id);
      const prev = this.last.get(n.id);
      // A changed count, a node we had not watched yet, or one just back online (a restart writes its row before it
      // beats) starts its silence from now; one not online is not judged.
      const online = n.state === 'online';
      if (!prev || prev.beats !== n.beats || !online || !prev.online) {
        this.last.set(n.id, { beats: n.beats, since: now, online });
        continue;
      }
      if (now - prev.since >= this.lostAfterMs) silent.push({ id: n.id, beats: n.beats });
    }
    for (const id of this.last.keys()) if (!present.has(id)) this.last.delete(id);
    return silent;
  }
}
