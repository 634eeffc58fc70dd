// What a lost node means, done once by the node that won marking it lost: jobs printing on its printers fail with
// node_lost (through the jobs' one transition path, so events and webhooks go out as usual), except on network
// printers, which print their own copy: those move to this node, which follows their job as a restart would; queued
// jobs pinned to its remaining printers wait with reason node_lost until it is back.
import type { JobRow } from '../jobs/jobs.repository.js';
import { activeJobs } from '../jobs/jobs.repository.js';
import type { Logger } from '../logger.js';
import { printerKindOf } from '../printers/network-url.js';
import type { Db } from '../storage/db.js';
import { movePrinterIf, printersOfNode, setPinnedWaitingReason } from './nodes.repository.js';

export const NODE_LOST_CODE = 'node_lost';

export interface NodeLostDeps {
  db: Db;
  logger: Logger;
  /** This node: the taker of the lost node's network printers. */
  selfId: string;
  /** Fails a job through the jobs' state machine at its last stored counters, settling its filament (the job runner's). */
  failJob(job: JobRow, error: { code: string; message: string }): Promise<unknown>;
  /** The printer is now this node's: open its session and follow `job` (running on it when the node was lost). */
  takeOver(printerId: string, job: JobRow | null): Promise<void>;
}

export async function handleNodeLost(d: NodeLostDeps, lostId: string): Promise<{ failed: number; taken: number }> {
  const printers = await printersOfNode(d.db, lostId);
  const active = await activeJobs(d.db);
  let failed = 0;
  let taken = 0;
  for (const p of printers) {
    const job = active.find((j) => j.printer_id === p.id) ?? null;
    if (printerKindOf(p.connection_url) !== 'serial' && (await movePrinterIf(d.db, p.id, lostId, d.selfId))) {
      taken++;
      d.logger.info('network printer of a lost node taken over', { printer_id: p.id, node_id: lostId, job_id: job?.id ?? null });
      await d.takeOver(p.id, job);
      continue;
    }
    if (!job) continue;
    failed++;
    await d.failJob(job, { code: NODE_LOST_CODE, message: `node ${lostId}, which drives printer ${p.id}, stopped sending heartbeats while the job was printing` });
  }
  await setPinnedWaitingReason(d.db, lostId, 'node_lost');
  return { failed, taken };
}
