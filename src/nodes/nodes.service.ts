// The node list with each node's printers, as GET /v1/nodes answers it.
import type { PrintersService } from '../printers/printers.service.js';
import type { Db } from '../storage/db.js';
import { listNodes, printerNodes } from './nodes.repository.js';
import type { NodeRecord } from './nodes.schemas.js';

export async function listNodeRecords(d: { db: Db; selfId: string; printers: PrintersService }): Promise<NodeRecord[]> {
  const [nodes, printers] = await Promise.all([listNodes(d.db), printerNodes(d.db)]);
  // As GET /v1/printers shows them: this node's from its sessions, another node's from the state that node publishes
  // (offline with node_unavailable once it is lost). A printer removed meanwhile is left out.
  const status = new Map<string, NodeRecord['printers'][number]['status']>();
  const printing = new Map<string, NodeRecord['printers'][number]['job']>();
  await Promise.all(
    printers.map(async (p) => {
      const record = await d.printers.get(p.id).catch(() => null);
      if (!record) return;
      status.set(p.id, record.status);
      if (record.current_job) printing.set(p.id, { id: record.current_job, name: '', progress: record.progress });
      else if (record.external_job) printing.set(p.id, { id: null, name: record.external_job.file_name, progress: record.external_job.progress });
    }),
  );
  const names = await jobNames(d.db, [...printing.values()].flatMap((j) => (j?.id ? [j.id] : [])));
  return nodes.map((n) => ({
    id: n.id,
    name: n.name,
    address: n.address,
    version: n.version,
    started_at: n.started_at,
    last_seen_at: n.last_seen_at,
    state: n.state,
    lost_since: n.state === 'lost' ? n.updated_at : null,
    self: n.id === d.selfId,
    printers: printers
      .filter((p) => p.node_id === n.id && status.has(p.id))
      // The node rows were just read; the printers feature learns of a stopped or lost node on its next refresh. One
      // answer must not show a stopped node with a printer still idle: its printers are offline with it.
      .map((p) => {
        const gone = n.id !== d.selfId && n.state !== 'online';
        const job = printing.get(p.id);
        return {
          id: p.id,
          name: p.name,
          status: gone ? 'offline' : status.get(p.id)!,
          job: gone || !job ? null : { ...job, name: job.id ? (names.get(job.id) ?? '') : job.name },
        };
      }),
  }));
}

/** The names of these jobs, by id. */
async function jobNames(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('jobs').select(['id', 'name']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}
