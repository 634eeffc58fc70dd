// How much room the data directory's disk has, the reserve kept for the database, and whether writes are failing:
// /healthz reports it and uploads ask it before (and while) they stream.
import { statfs, statfsSync } from 'node:fs';
import { promisify } from 'node:util';
import { storageFull } from './storage-full.js';

export type StorageState = 'ok' | 'low' | 'full';

const MB = 1024 * 1024;
/** The default reserve: the smaller of this and RESERVE_SHARE of the file system. */
export const DEFAULT_RESERVE_MB = 200;
export const RESERVE_SHARE = 0.1;
/** Below this much free space the disk counts as full even before a write failed. */
const FULL_BELOW_BYTES = 1 * MB;
/** An upload re-reads the free space after every this many bytes it wrote. */
const UPLOAD_CHECK_BYTES = 1 * MB;

export interface DiskSpace {
  freeBytes: number;
  totalBytes: number;
  reserveBytes: number;
}

export interface StorageStatusDeps {
  dataDir: string;
  /** The organization's storage_reserve_mb; null (or no organization yet): the default. */
  reserveMb(): Promise<number | null>;
}

const statfsAsync = promisify(statfs);

/** The reserve in bytes for a file system of `totalBytes`: the setting when given, else min(200 MB, 10 %). */
export function reserveBytesFor(totalBytes: number, settingMb: number | null): number {
  if (settingMb !== null) return settingMb * MB;
  return Math.min(DEFAULT_RESERVE_MB * MB, Math.floor(totalBytes * RESERVE_SHARE));
}

export class StorageStatus {
  /** A write failed for lack of room and none has succeeded since. */
  private failing = false;
  private readonly onWrittenHooks: Array<() => void> = [];

  constructor(private readonly d: StorageStatusDeps) {}

  /** A write failed because the disk (or the database) is full. */
  noteFull(): void {
    this.failing = true;
  }

  /** A write went through: the disk has room (held writes are told to try again). */
  noteWritten(): void {
    const was = this.failing;
    this.failing = false;
    if (was) for (const hook of this.onWrittenHooks) hook();
  }

  /** Called when a write succeeds after failures (the durable writer retries its held writes then). */
  onRoom(hook: () => void): void {
    this.onWrittenHooks.push(hook);
  }

  async space(): Promise<DiskSpace> {
    const s = await statfsAsync(this.d.dataDir);
    const totalBytes = s.blocks * s.bsize;
    return { freeBytes: s.bavail * s.bsize, totalBytes, reserveBytes: reserveBytesFor(totalBytes, await this.d.reserveMb()) };
  }

  /** full: writes fail (or under 1 MB is left); low: free space is below the reserve; else ok. */
  async state(): Promise<StorageState> {
    const space = await this.space();
    if (this.failing || space.freeBytes < FULL_BELOW_BYTES) return 'full';
    return space.freeBytes < space.reserveBytes ? 'low' : 'ok';
  }

  /**
   * Before an upload or download streams: 507 storage_full when storing `expectedBytes` (0 when unknown) would leave
   * less than the reserve. Returns a check for the stream to call with its running byte count, which re-reads the free
   * space every megabyte and throws 507 once the upload has eaten into the reserve.
   */
  async admitUpload(expectedBytes = 0): Promise<(writtenBytes: number) => void> {
    const space = await this.space();
    if (space.freeBytes - expectedBytes < space.reserveBytes) throw this.refusal(space, expectedBytes);
    let checkedAt = 0;
    return (written) => {
      if (written - checkedAt < UPLOAD_CHECK_BYTES) return;
      checkedAt = written;
      const s = statfsSync(this.d.dataDir);
      const now = { ...space, freeBytes: s.bavail * s.bsize };
      if (now.freeBytes < space.reserveBytes) throw this.refusal(now, 0);
    };
  }

  private refusal(space: DiskSpace, expectedBytes: number) {
    const mb = (n: number): string => `${Math.max(0, Math.floor(n / MB))} MB`;
    return storageFull(
      'the file',
      `${mb(space.freeBytes)} free${expectedBytes > 0 ? `, ${mb(expectedBytes)} to store` : ''}; ${mb(space.reserveBytes)} are kept for the database ` +
        '(organization setting storage_reserve_mb)',
      'the disk is nearly full and the rest is kept for the database',
    );
  }
}
