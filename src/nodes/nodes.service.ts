// The node list with each node's printers, as GET /v1/nodes answers it.
import type { PrintersService } from '../printers/printers.service.js';
import { apiStatus } from '../printers/printer-record.js';
import type { Db } from '../storage/db.js';
import { listNodes, printerNodes } from './nodes.repository.js';
import type { NodeRecord } from './nodes.schemas.js';

export async function listNodeRecords(d: { db: Db; selfId: string; printers: PrintersService }): Promise<NodeRecord[]> {
  const [nodes, printers] = await Promise.all([listNodes(d.db), printerNodes(d.db)]);
  return nodes.map((n) => ({
    id: n.id,
    name: n.name,
    address: n.address,
    version: n.version,
    started_at: n.started_at,
    last_seen_at: n.last_seen_at,
    state: n.state,
    self: n.id === d.selfId,
    printers: printers
      .filter((p) => p.node_id === n.id)
      .map((p) => ({
        id: p.id,
        name: p.name,
        // Only the owner holds a session; another online node's printer state lives there.
        status: n.id === d.selfId ? apiStatus(d.printers.session(p.id)?.currentStatus) : n.state === 'online' ? null : 'offline',
      })),
  }));
}
