// What a node's scheduler needs to know of the other nodes: whose printers are not its own, whether it is the one
// node that writes the waiting reasons of unpinned jobs (the online node with the smallest id, so exactly one does), and
// whether the others have marked it lost (then it starts nothing until it beats again: its jobs were given up on).
import type { Db } from '../storage/db.js';
import { listNodes, printerNodes } from './nodes.repository.js';

export async function schedulerNodeView(db: Db, selfId: string): Promise<{ foreignPrinters: Set<string>; writesSharedReasons: boolean; lost: boolean }> {
  const [printers, nodes] = await Promise.all([printerNodes(db), listNodes(db)]);
  const foreignPrinters = new Set(printers.filter((p) => p.node_id !== null && p.node_id !== selfId).map((p) => p.id));
  const online = nodes.filter((n) => n.state === 'online' || n.id === selfId).map((n) => n.id).sort();
  const lost = nodes.some((n) => n.id === selfId && n.state === 'lost');
  return { foreignPrinters, writesSharedReasons: !lost && (online.length === 0 || online[0] === selfId), lost };
}
