// The nightly backup into DATA_DIR/backups/: a once-a-minute check against an injected clock, catch-up after downtime, keep the newest N.
import { mkdir } from 'node:fs/promises';
import type BetterSqlite3 from 'better-sqlite3';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { backupsFolder, listBackups, nightlyBackupPath, pruneNightly } from './backup-folder.js';
import { createBackup, type BackupContents } from './create-backup.js';

export interface NightlySettings {
  /** "HH:MM" on the local clock of `timezone`; null: no nightly backups. */
  time: string | null;
  keep: number;
  timezone: string;
}

/** A wall clock reading: the local calendar day ("YYYY-MM-DD") and minutes since local midnight. */
export interface LocalTime {
  day: string;
  minutes: number;
}

export interface NightlyDeps {
  sqlite: BetterSqlite3.Database;
  contents: BackupContents;
  clock: Clock;
  logger: Logger;
  /** Read at every check, so a settings change applies without a restart. */
  settings(): Promise<NightlySettings>;
  localTime(ms: number, timezone: string): LocalTime;
}

/** After a failed attempt, the next one waits this long (a full disk must not be retried every minute). */
export const RETRY_AFTER_FAILURE_MS = 60 * 60_000;
const CHECK_EVERY_MS = 60_000;

const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * Due when the local time has passed the backup time today and no nightly backup was taken yet this local day: a
 * server that was off at 03:30 takes it when it comes back, and a clock jump never causes two in one day. A farm
 * without any nightly backup yet waits until the time is crossed while it runs (`previousCheck` before it), so a
 * first start in the afternoon does not begin with one.
 */
export function isNightlyDue(now: LocalTime, time: string | null, lastTakenDay: string | null, previousCheck: LocalTime | null): boolean {
  if (time === null) return false;
  const at = minutesOf(time);
  if (now.minutes < at) return false;
  if (lastTakenDay !== null) return lastTakenDay < now.day;
  return previousCheck !== null && (previousCheck.day < now.day || previousCheck.minutes < at);
}

export class NightlyBackup {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<string | null> | null = null;
  private failedAtMs: number | null = null;
  private previousCheck: LocalTime | null = null;

  constructor(private readonly deps: NightlyDeps) {}

  /** Checks now (catch-up) and then every minute. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), CHECK_EVERY_MS);
    this.timer.unref();
    void this.tick();
  }

  /** Stops checking and waits for a backup in progress, so the database is not closed under it. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** One check: takes the backup when due; resolves with its path, or null when none was due (or one is running). */
  tick(): Promise<string | null> {
    if (this.running) return Promise.resolve(null);
    this.running = this.check().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async check(): Promise<string | null> {
    const { clock, logger, contents } = this.deps;
    const nowMs = clock.now();
    if (this.failedAtMs !== null && nowMs - this.failedAtMs < RETRY_AFTER_FAILURE_MS) return null;
    let settings: NightlySettings;
    try {
      settings = await this.deps.settings();
      const last = (await listBackups(contents.dataDir)).find((b) => b.kind === 'nightly');
      const lastDay = last ? this.deps.localTime(last.takenMs, settings.timezone).day : null;
      const now = this.deps.localTime(nowMs, settings.timezone);
      const previous = this.previousCheck;
      this.previousCheck = now;
      if (!isNightlyDue(now, settings.time, lastDay, previous)) return null;
    } catch (err) {
      logger.error('nightly backup: could not check whether one is due', { error: err as Error });
      return null;
    }
    try {
      await mkdir(backupsFolder(contents.dataDir), { recursive: true, mode: 0o700 });
      // Small steps: the server's event loop stays free, and its own writes go into the copy as they happen.
      const r = await createBackup({ sqlite: this.deps.sqlite, contents, toFile: nightlyBackupPath(contents.dataDir, nowMs), withFiles: false, reason: 'nightly', nowMs, pagesPerStep: 256 });
      const removed = await pruneNightly(contents.dataDir, settings.keep);
      this.failedAtMs = null;
      logger.info('nightly backup written', { file: r.file, bytes: r.bytes, ms: Math.round(r.ms), removed: removed.length });
      return r.file;
    } catch (err) {
      this.failedAtMs = nowMs;
      logger.error('nightly backup failed; trying again in an hour', { error: err as Error });
      return null;
    }
  }
}
