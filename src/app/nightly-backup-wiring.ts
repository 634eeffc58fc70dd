// Builds the nightly backup of a running server: the organization's settings and time zone, read at every check; on
// PostgreSQL the night is claimed in the database, so a farm of several nodes takes it once.
import { getOrganization } from '../auth/organization.service.js';
import { wallClock } from '../analytics/time-buckets.js';
import { createBackup } from '../backup/create-backup.js';
import { NightlyBackup, type LocalTime } from '../backup/nightly-backup.js';
import { databaseLedger, folderLedger } from '../backup/nightly-ledger.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { DbHandle } from '../storage/db.js';
import { backupContents } from './backup-contents.js';
import { backupSharedFarm } from './shared-farm-backup.js';

const pad = (n: number): string => String(n).padStart(2, '0');

/** The local day and minute of the day at `ms` in an IANA zone. */
export function localTimeIn(ms: number, timezone: string): LocalTime {
  const w = wallClock(ms, timezone);
  return { day: `${w.y}-${pad(w.mo)}-${pad(w.d)}`, minutes: w.h * 60 + w.mi };
}

export interface NightlyWiring {
  handle: DbHandle;
  dataDir: string;
  clock: Clock;
  logger: Logger;
  /** This node: on a shared database, the one whose claim of the night wins takes it. */
  nodeId: string;
  /** --files-dir: where a farm on the database keeps the files (absent: in the database). */
  filesDir?: string;
  /** PRINTFARM_SECRET_KEY as this node was started with (tests pass their own). */
  secretKeyEnv?: string | undefined;
}

export function createNightlyBackup(s: NightlyWiring): NightlyBackup {
  const { handle } = s;
  const contents = backupContents(s.dataDir);
  return new NightlyBackup({
    dataDir: s.dataDir,
    write:
      handle.engine === 'sqlite'
        ? // Small steps: the server's event loop stays free, and its own writes go into the copy as they happen.
          (toFile, withFiles, nowMs) => createBackup({ sqlite: handle.sqlite, contents, toFile, withFiles, reason: 'nightly', nowMs, pagesPerStep: 256 })
        : (toFile, withFiles, nowMs) =>
            backupSharedFarm({
              handle,
              dataDir: s.dataDir,
              filesDir: s.filesDir ?? null,
              toFile,
              withFiles,
              reason: 'nightly',
              nowMs,
              ...('secretKeyEnv' in s ? { secretKeyEnv: s.secretKeyEnv } : {}),
            }),
    ledger: handle.engine === 'sqlite' ? folderLedger(s.dataDir, localTimeIn) : databaseLedger(handle.db, s.nodeId),
    clock: s.clock,
    logger: s.logger,
    settings: async () => {
      const org = await getOrganization(handle.db);
      return { time: org.backup_time, keep: org.backup_keep, timezone: org.timezone, withFiles: org.backup_with_files === 1 };
    },
    localTime: localTimeIn,
  });
}
