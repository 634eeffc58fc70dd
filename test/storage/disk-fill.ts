// Fills the database "disk" for real: PRAGMA max_page_count caps the file at its size, and filler rows use up the free
// pages and the room left in the event log's last page, so the next event (and whatever needs a new page) gets a real
// SQLITE_FULL from SQLite on a real file. free() lifts the cap again.
import { randomUUID } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';

const isFull = (err: unknown): boolean => (err as { code?: string }).code === 'SQLITE_FULL';

/** Inserts with `insert(size)` at shrinking sizes until even the smallest one finds no room. */
function exhaust(insert: (size: number) => void): void {
  for (const size of [8192, 2048, 512, 128, 16, 1]) {
    for (;;) {
      try {
        insert(size);
      } catch (err) {
        if (isFull(err)) break;
        throw err;
      }
    }
  }
}

export function fillDatabase(sqlite: BetterSqlite3.Database): { free(): void } {
  sqlite.exec('CREATE TABLE IF NOT EXISTS disk_filler (b BLOB NOT NULL)');
  const pages = sqlite.pragma('page_count', { simple: true }) as number;
  sqlite.pragma(`max_page_count = ${pages}`);
  const filler = sqlite.prepare('INSERT INTO disk_filler (b) VALUES (?)');
  exhaust((size) => filler.run(Buffer.alloc(size)));
  // Rows of the event log's shape that belong to no object a test looks at: the log's last page is full too.
  const event = sqlite.prepare('INSERT INTO events (id, type, created_at, created_ms, body) VALUES (?, ?, ?, ?, ?)');
  exhaust((size) =>
    event.run(`evt_fill_${randomUUID()}`, 'test.filler', new Date(0).toISOString(), 0, JSON.stringify({ data: { object: { id: 'filler', pad: 'x'.repeat(size) } } })),
  );
  return {
    free() {
      sqlite.pragma('max_page_count = 1073741823');
    },
  };
}

/**
 * After fillDatabase: fills the pages of the delivery table and its indexes too (failed deliveries of `webhookId`, which
 * no worker sends), so an outcome that makes a delivery row grow finds no room either.
 */
export function fillDeliveries(sqlite: BetterSqlite3.Database, webhookId: string): void {
  const { seq } = sqlite.prepare('SELECT MAX(seq) AS seq FROM events').get() as { seq: number };
  let n = 1_000_000;
  const row = sqlite.prepare(
    "INSERT INTO webhook_deliveries (id, webhook_id, event_seq, seq, status, last_error, created_at, updated_at) VALUES (?, ?, ?, ?, 'failed', ?, ?, ?)",
  );
  const at = new Date(0).toISOString();
  exhaust((size) => row.run(`dlv_fill_${randomUUID()}`, webhookId, seq, n++, 'x'.repeat(size), at, at));
}
