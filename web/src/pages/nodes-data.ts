// The boxes of the farm (GET /v1/nodes), kept fresh for the Nodes page and the farm page's lost-node notice.
import { useEffect } from 'preact/hooks';
import { api } from '../lib/api.js';
import { useReloadOn, useResource, type Resource } from '../lib/hooks.js';
import type { NodeRecord } from '../../../src/nodes/nodes.schemas.js';

/** The server's own record type: one source for the shape. */
export type FarmNode = NodeRecord;

/** Live events after which a node's printers or what they print have changed (telemetry and progress are left out). */
const NODE_EVENTS = ['printer.created', 'printer.deleted', 'printer.updated', 'printer.online', 'printer.offline', 'job.started', 'job.completed', 'job.failed', 'job.cancelled', 'job.paused', 'job.resumed'];

/**
 * A box is lost by its silence (no heartbeat for 30 s), which no live event announces: on a farm of several boxes a
 * page showing the nodes reads them again every 15 s as well as after the events above. One box polls nothing.
 */
const REFRESH_MS = 15_000;

export function useNodes(): Resource<FarmNode[]> {
  const nodes = useResource(async () => (await api.get<{ data: FarmNode[] }>('/v1/nodes')).data);
  useReloadOn(NODE_EVENTS, nodes, 1000);
  const several = (nodes.data?.length ?? 0) > 1;
  useEffect(() => {
    if (!several) return undefined;
    const timer = setInterval(() => void nodes.reload(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [several]);
  return nodes;
}

/** "lost since 14:02" / "online" / "stopped": the state as the pages word it. */
export function stateWords(node: FarmNode, time: (iso: string) => string): string {
  if (node.state === 'lost') return node.lost_since ? `lost since ${time(node.lost_since)}` : 'lost';
  return node.state;
}
