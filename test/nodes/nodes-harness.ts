// Several nodes of one farm in one process: test apps on one database (a SQLite file, or on the PostgreSQL run one
// PostgreSQL database) sharing one LocalClusterBus, each its own node.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalClusterBus } from '../../src/cluster/cluster-bus.js';
import { newId } from '../../src/ids.js';
import type { NodeTuning } from '../../src/nodes/node-runtime.js';
import { DATABASE_FILE } from '../../src/storage/db.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { createPgTestDatabase, testPgUrl } from '../helpers/test-database.js';

export interface Farm {
  file: string;
  cluster: LocalClusterBus;
  /** Starts a node on the farm's database (a fresh id unless given: the same id is the same node starting again). */
  node(name: string, tuning?: NodeTuning & { id?: string; startRetryMs?: number }): Promise<PrintersApp & { nodeId: string }>;
  close(): Promise<void>;
}

export function startFarm(): Farm {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-nodes-'));
  const file = path.join(dir, DATABASE_FILE);
  const cluster = new LocalClusterBus();
  const apps: PrintersApp[] = [];
  const maintenance = testPgUrl();
  // On the PostgreSQL run: one database for the farm, made before the first node and dropped after the last.
  const pg = maintenance ? createPgTestDatabase(maintenance) : null;
  return {
    file,
    cluster,
    async node(name, tuning = {}) {
      const { id = newId('nod'), startRetryMs, ...nodes } = tuning;
      // One data directory: the secret key and the stored G-code files are shared, as PRINTFARM_SECRET_KEY and a shared
      // files directory make them between boxes; the node id is given, not read from it.
      const dataDir = dir;
      const database = pg ? { databaseUrl: (await pg).url } : { file };
      const app = await startPrintersApp({ ...database, dataDir, cluster, node: { id, name }, nodes, ...(startRetryMs !== undefined ? { startRetryMs } : {}) });
      apps.push(app);
      return Object.assign(app, { nodeId: id });
    },
    async close() {
      for (const a of apps.reverse()) await a.close().catch(() => undefined);
      await cluster.close();
      if (pg) await (await pg).drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Types of stored events of this job, in order (read through kysely, so any node's handle sees them). */
export async function storedJobEvents(app: PrintersApp, jobId: string): Promise<string[]> {
  const rows = await app.t.deps.db.selectFrom('events').select(['type', 'body']).orderBy('seq').execute();
  return rows.filter((r) => (JSON.parse(r.body) as { data: { object: { id?: string } } }).data.object.id === jobId).map((r) => r.type);
}
