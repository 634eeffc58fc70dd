// Builds the nightly backup of a running server: the organization's settings and time zone, read at every check.
import { getOrganization } from '../auth/organization.service.js';
import { wallClock } from '../analytics/time-buckets.js';
import { NightlyBackup, type LocalTime } from '../backup/nightly-backup.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { SqliteHandle } from '../storage/db.js';
import { backupContents } from './backup-contents.js';

const pad = (n: number): string => String(n).padStart(2, '0');

/** The local day and minute of the day at `ms` in an IANA zone. */
export function localTimeIn(ms: number, timezone: string): LocalTime {
  const w = wallClock(ms, timezone);
  return { day: `${w.y}-${pad(w.mo)}-${pad(w.d)}`, minutes: w.h * 60 + w.mi };
}

/** SQLite only: on PostgreSQL the database is backed up with pg_dump, not by copying a file. */
export function createNightlyBackup(s: { handle: SqliteHandle; dataDir: string; clock: Clock; logger: Logger }): NightlyBackup {
  return new NightlyBackup({
    sqlite: s.handle.sqlite,
    contents: backupContents(s.dataDir),
    clock: s.clock,
    logger: s.logger,
    settings: async () => {
      const org = await getOrganization(s.handle.db);
      return { time: org.backup_time, keep: org.backup_keep, timezone: org.timezone };
    },
    localTime: localTimeIn,
  });
}
