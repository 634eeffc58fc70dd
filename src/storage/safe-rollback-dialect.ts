// kysely's SQLite dialect, except that a rollback SQLite already did by itself is not attempted again.
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver } from 'kysely';

/**
 * On SQLITE_FULL (and a few other errors) SQLite rolls the transaction back by itself; kysely's own ROLLBACK then fails
 * with "no transaction is active" and that error replaces the real one. Skipping it keeps SQLITE_FULL visible, so a
 * full disk is answered as such (507) and held state writes know to retry.
 */
export class SafeRollbackDialect extends SqliteDialect {
  constructor(private readonly sqlite: BetterSqlite3.Database) {
    super({ database: sqlite });
  }

  override createDriver(): Driver {
    const sqlite = this.sqlite;
    return new (class extends SqliteDriver {
      override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
        if (sqlite.inTransaction) await super.rollbackTransaction(connection);
      }
    })({ database: sqlite });
  }
}
