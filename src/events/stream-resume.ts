// Where a reconnecting live-stream client resumes: after the event it last saw, or from the oldest retained one.
import type { Db } from '../storage/db.js';
import { eventSeqById, oldestEventSeq } from './event-log.repository.js';

export interface ResumePoint {
  /** Replay the log after this sequence number; null: live events only. */
  afterSeq: number | null;
  /** Comment lines the stream sends first, e.g. that the id was no longer in the log. */
  notes: string[];
}

export async function resumePoint(db: Db, lastEventId: string | undefined): Promise<ResumePoint> {
  if (!lastEventId) return { afterSeq: null, notes: [] };
  const seq = await eventSeqById(db, lastEventId);
  if (seq !== undefined) return { afterSeq: seq, notes: [] };
  return {
    afterSeq: Math.max(0, (await oldestEventSeq(db)) - 1),
    notes: [`Last-Event-ID ${JSON.stringify(lastEventId)} is not in the retained log: replaying from the oldest retained event`],
  };
}
