// Which node owns a printer or a running job, and how to reach it: small reads of printers, jobs and nodes for forwarding.
import type { Db } from '../storage/db.js';

export interface OwnerNode {
  id: string;
  name: string;
  address: string | null;
  state: 'online' | 'lost' | 'stopped';
}

/** The node a printer belongs to; null: no such printer or no owner recorded (a single box). */
export async function printerOwnerId(db: Db, printerId: string): Promise<string | null> {
  const row = await db.selectFrom('printers').select('node_id').where('id', '=', printerId).executeTakeFirst();
  return row?.node_id ?? null;
}

/** The node running a job's print (printing or paused); null when the job is not on a printer right now. */
export async function runningJobOwnerId(db: Db, jobId: string): Promise<string | null> {
  const row = await db
    .selectFrom('jobs')
    .innerJoin('printers', 'printers.id', 'jobs.printer_id')
    .select('printers.node_id')
    .where('jobs.id', '=', jobId)
    .where('jobs.status', 'in', ['printing', 'paused'])
    .executeTakeFirst();
  return row?.node_id ?? null;
}

export async function findOwnerNode(db: Db, nodeId: string): Promise<OwnerNode | null> {
  const row = await db.selectFrom('nodes').select(['id', 'name', 'address', 'state']).where('id', '=', nodeId).executeTakeFirst();
  return row ?? null;
}
