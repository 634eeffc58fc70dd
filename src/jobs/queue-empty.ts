// Whether a job start emptied the queue, and the queue.empty event's object: how the queue stands and the job that
// started last, so a person reading it knows the printers will run out of work.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { JobRecord } from './job-record.js';

export interface QueueEmptyObject {
  object: 'queue';
  queued: 0;
  printing: number;
  last_started: Pick<JobRecord, 'id' | 'name' | 'printer_id'>;
}

/** Run in the start's transaction: the queue's state when no job is left queued, else null. */
export async function queueEmptyAfterStart(trx: Kysely<Database>, job: JobRecord): Promise<QueueEmptyObject | null> {
  const counts = await trx
    .selectFrom('jobs')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('status', 'in', ['queued', 'printing'])
    .groupBy('status')
    .execute();
  const n = (status: string): number => Number(counts.find((c) => c.status === status)?.n ?? 0);
  if (n('queued') > 0) return null;
  return { object: 'queue', queued: 0, printing: n('printing'), last_started: { id: job.id, name: job.name, printer_id: job.printer_id } };
}
