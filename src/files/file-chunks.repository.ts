// Rows of file_chunks: one file's content or thumbnail as numbered pieces, written and read one piece at a time.
import { sql } from 'kysely';
import type { Db } from '../storage/db.js';
import type { FileChunkTable } from '../storage/schema.js';

type Part = FileChunkTable['part'];

/**
 * Replaces the part's chunks with what `next(idx)` returns for idx 0, 1, ... until null, in one transaction: readers
 * never see a mix of an old and a new copy. Only one chunk is held at a time.
 */
export async function writeChunks(db: Db, sha256: string, part: Part, next: (idx: number) => Promise<Buffer | null>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('file_chunks').where('sha256', '=', sha256).where('part', '=', part).execute();
    for (let idx = 0; ; idx++) {
      const data = await next(idx);
      if (data === null) break;
      await trx.insertInto('file_chunks').values({ sha256, part, idx, data }).execute();
    }
  });
}

export async function readChunk(db: Db, sha256: string, part: Part, idx: number): Promise<Buffer | null> {
  const row = await db.selectFrom('file_chunks').select('data').where('sha256', '=', sha256).where('part', '=', part).where('idx', '=', idx).executeTakeFirst();
  return row ? Buffer.from(row.data) : null;
}

/** How many chunks and bytes a part has (length() is the byte length of a BLOB and of a BYTEA alike). */
export async function chunkCount(db: Db, sha256: string, part: Part): Promise<{ chunks: number; bytes: number }> {
  const row = await db
    .selectFrom('file_chunks')
    .select([sql<number>`count(*)`.as('chunks'), sql<number | null>`sum(length(data))`.as('bytes')])
    .where('sha256', '=', sha256)
    .where('part', '=', part)
    .executeTakeFirstOrThrow();
  return { chunks: Number(row.chunks), bytes: Number(row.bytes ?? 0) };
}

export async function deleteChunks(db: Db, sha256: string, parts: Part[]): Promise<void> {
  await db.deleteFrom('file_chunks').where('sha256', '=', sha256).where('part', 'in', parts).execute();
}
