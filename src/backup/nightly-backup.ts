// The nightly backup into DATA_DIR/backups/: a once-a-minute check against an injected clock, catch-up after downtime, keep the newest N.
import { mkdir } from 'node:fs/promises';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { backupsFolder, nightlyBackupPath, pruneNightly } from './backup-folder.js';
import type { BackupResult } from './create-backup.js';
import type { NightlyLedger } from './nightly-ledger.js';

export interface NightlySettings {
  /** "HH:MM" on the local clock of `timezone`; null: no nightly backups. */
  time: string | null;
  keep: number;
  timezone: string;
  /** The stored G-code files and thumbnails go in too. */
  withFiles: boolean;
}

/** A wall clock reading: the local calendar day ("YYYY-MM-DD") and minutes since local midnight. */
export interface LocalTime {
  day: string;
  minutes: number;
}

export interface NightlyDeps {
  /** The data directory whose backups/ folder receives the archives. */
  dataDir: string;
  /** Writes one archive (the engine's way: SQLite's online backup, or the verified copy out of PostgreSQL). */
  write(toFile: string, withFiles: boolean, nowMs: number): Promise<BackupResult>;
  /** Which nights were taken, and who takes tonight's: the folder on one box, the database on a farm of several. */
  ledger: NightlyLedger;
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
    const { clock, logger, dataDir, ledger } = this.deps;
    const nowMs = clock.now();
    if (this.failedAtMs !== null && nowMs - this.failedAtMs < RETRY_AFTER_FAILURE_MS) return null;
    let settings: NightlySettings;
    let day: string;
    try {
      settings = await this.deps.settings();
      const lastDay = await ledger.lastDay(settings.timezone, nowMs);
      const now = this.deps.localTime(nowMs, settings.timezone);
      const previous = this.previousCheck;
      this.previousCheck = now;
      if (!isNightlyDue(now, settings.time, lastDay, previous)) return null;
      // Of several nodes due at the same minute, one wins tonight's claim; the others find the night taken.
      if (!(await ledger.claim(now.day, nowMs))) return null;
      day = now.day;
    } catch (err) {
      logger.error('nightly backup: could not check whether one is due', { error: err as Error });
      return null;
    }
    try {
      await mkdir(backupsFolder(dataDir), { recursive: true, mode: 0o700 });
      const r = await this.deps.write(nightlyBackupPath(dataDir, nowMs), settings.withFiles, nowMs);
      await ledger.finished(day, r.file, r.bytes, clock.now());
      const removed = await pruneNightly(dataDir, settings.keep);
      this.failedAtMs = null;
      logger.info('nightly backup written', { file: r.file, bytes: r.bytes, ms: Math.round(r.ms), removed: removed.length, with_files: settings.withFiles });
      return r.file;
    } catch (err) {
      this.failedAtMs = nowMs;
      // The night is free again: another node (or this one, in an hour) tries it.
      await ledger.abandon(day).catch(() => undefined);
      logger.error('nightly backup failed; trying again in an hour', { error: err as Error });
      return null;
    }
  }
}
