// Pictures of every job: at its start, every job_picture_step percent, and at its end (taken before the end is written,
// so job.completed / job.failed carry the last picture's URL), kept within a per-job and a total size budget.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { notFound } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { Database, JobSnapshotTable } from '../storage/schema.js';
import { asFault } from './camera-fault.js';
import type { CameraRow } from './cameras.repository.js';
import type { CamerasService } from './cameras.service.js';
import {
  bytesOfAll,
  bytesOfJob,
  deleteSnapshots,
  insertJobSnapshot,
  jobSnapshotData,
  jobSnapshots,
  oldestSnapshots,
  type JobSnapshotMeta,
} from './job-snapshots.repository.js';

export interface JobSnapshotBudget {
  /** The most one job's pictures may take; progress pictures stop there, and make room for the end picture. */
  perJobBytes: number;
  /** The most all jobs' pictures may take; the oldest go first. */
  totalBytes: number;
  /** How long the end picture may hold up the job's end (an unreachable camera must not delay it long). */
  endTimeoutMs: number;
  /** How long a start or progress picture may take. */
  timeoutMs: number;
}

export const DEFAULT_JOB_SNAPSHOT_BUDGET: JobSnapshotBudget = { perJobBytes: 20 * 1024 * 1024, totalBytes: 2 * 1024 * 1024 * 1024, endTimeoutMs: 3000, timeoutMs: 8000 };

export type EndMoment = 'completed' | 'failed' | 'cancelled';

export interface JobSnapshotRecord {
  id: string;
  job_id: string;
  camera_id: string;
  moment: JobSnapshotTable['moment'];
  progress: number | null;
  size: number;
  taken_at: string;
  url: string;
}

export const jobSnapshotPath = (jobId: string, id: string): string => `/v1/jobs/${jobId}/snapshots/${id}`;

const toRecord = (m: JobSnapshotMeta): JobSnapshotRecord => ({ ...m, url: jobSnapshotPath(m.job_id, m.id) });

interface Followed {
  cameras: CameraRow[];
  /** The last progress step photographed (progress / step, rounded down). */
  step: number;
}

export interface JobSnapshotsDeps {
  db: Kysely<Database>;
  bus: EventBus;
  cameras: CamerasService;
  clock: Clock;
  logger: Logger;
  budget?: Partial<JobSnapshotBudget>;
}

export class JobSnapshots {
  private readonly budget: JobSnapshotBudget;
  private readonly followed = new Map<string, Promise<Followed>>();
  private readonly unsubscribe: Array<() => void> = [];
  /** The last taken_at in ms: pictures keep the order they were taken in even when the clock stands still. */
  private lastTaken = -Infinity;
  /** Pictures being taken or stored (tests and shutdown wait on them). */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly d: JobSnapshotsDeps) {
    this.budget = { ...DEFAULT_JOB_SNAPSHOT_BUDGET, ...d.budget };
  }

  start(): void {
    this.unsubscribe.push(
      this.d.bus.on('job.started', (p) => this.track(this.started(p.job_id, p.printer_id))),
      this.d.bus.on('job.progress', (p) => this.track(this.progressed(p.job_id, p.printer_id, p.progress))),
    );
  }

  stop(): void {
    for (const off of this.unsubscribe.splice(0)) off();
  }

  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  async list(jobId: string): Promise<JobSnapshotRecord[]> {
    const job = await this.d.db.selectFrom('jobs').select('id').where('id', '=', jobId).executeTakeFirst();
    if (!job) throw notFound('job', jobId);
    return (await jobSnapshots(this.d.db, jobId)).map(toRecord);
  }

  async data(jobId: string, id: string): Promise<Buffer> {
    const data = await jobSnapshotData(this.d.db, jobId, id);
    if (!data) throw notFound('snapshot', id);
    return data;
  }

  /** The end picture, taken before the job's end is written; never throws, never takes longer than endTimeoutMs. */
  async ended(jobId: string, printerId: string, status: EndMoment): Promise<void> {
    const followed = this.followed.get(jobId);
    this.followed.delete(jobId);
    const cameras = followed ? (await followed).cameras : await this.camerasOf(printerId);
    await this.track(Promise.all(cameras.map((c) => this.take(jobId, c, status, null, this.budget.endTimeoutMs))));
  }

  private track<T>(p: Promise<T>): Promise<T> {
    const guarded = p.catch((err: Error) => {
      this.d.logger.error('could not store a job picture', { error: err });
    }) as Promise<T>;
    this.pending.add(guarded);
    void guarded.finally(() => this.pending.delete(guarded));
    return guarded;
  }

  private async camerasOf(printerId: string): Promise<CameraRow[]> {
    return this.d.cameras.jobCameras(printerId);
  }

  private async started(jobId: string, printerId: string): Promise<void> {
    const followed = this.camerasOf(printerId).then((cameras) => ({ cameras, step: 0 }));
    this.followed.set(jobId, followed);
    const { cameras } = await followed;
    await Promise.all(cameras.map((c) => this.take(jobId, c, 'start', 0, this.budget.timeoutMs)));
  }

  private async progressed(jobId: string, printerId: string, progress: number): Promise<void> {
    let followed = this.followed.get(jobId);
    if (!followed) {
      // Followed again after a restart: from the step it is at now, without a burst for the steps already passed.
      followed = this.camerasOf(printerId).then((cameras) => ({ cameras, step: Math.floor(progress / (cameras[0]?.job_picture_step ?? 100)) }));
      this.followed.set(jobId, followed);
    }
    const f = await followed;
    const due = f.cameras.filter((c) => c.job_picture_step !== null && Math.floor(progress / c.job_picture_step) > f.step && progress < 100);
    if (due.length === 0) return;
    f.step = Math.floor(progress / (due[0]!.job_picture_step as number));
    await Promise.all(due.map((c) => this.take(jobId, c, 'progress', progress, this.budget.timeoutMs)));
  }

  private async take(jobId: string, camera: CameraRow, moment: JobSnapshotTable['moment'], progress: number | null, timeoutMs: number): Promise<void> {
    let jpeg: Buffer;
    try {
      jpeg = await this.d.cameras.capture(camera, timeoutMs);
    } catch (err) {
      // The camera's state says why; the job goes on without this picture.
      this.d.logger.warn('no job picture: the camera gave none', { job_id: jobId, camera_id: camera.id, moment, reason: asFault(err).message });
      return;
    }
    if (!(await this.roomInJob(jobId, jpeg.length, moment))) {
      this.d.logger.info('job picture skipped: the job is at its picture budget', { job_id: jobId, moment, budget_bytes: this.budget.perJobBytes });
      return;
    }
    const id = newId('snp');
    const at = Math.max(this.d.clock.now(), this.lastTaken + 1);
    this.lastTaken = at;
    await insertJobSnapshot(this.d.db, {
      id,
      job_id: jobId,
      camera_id: camera.id,
      moment,
      progress: progress === null ? null : Math.round(progress * 10) / 10,
      size: jpeg.length,
      data: jpeg,
      taken_at: new Date(at).toISOString(),
    });
    await this.pruneTotal(id);
  }

  /** Whether a picture of `size` fits the job's budget; an end or start picture makes room by dropping progress pictures. */
  private async roomInJob(jobId: string, size: number, moment: JobSnapshotTable['moment']): Promise<boolean> {
    if (size > this.budget.perJobBytes) return false;
    let used = await bytesOfJob(this.d.db, jobId);
    if (used + size <= this.budget.perJobBytes) return true;
    if (moment === 'progress') return false;
    const progress = await oldestSnapshots(this.d.db, 1000, { jobId, moment: 'progress' });
    const drop: string[] = [];
    for (const o of progress) {
      if (used + size <= this.budget.perJobBytes) break;
      drop.push(o.id);
      used -= o.size;
    }
    if (used + size > this.budget.perJobBytes) return false;
    await deleteSnapshots(this.d.db, drop);
    return true;
  }

  /** Drops the oldest pictures of any job until all fit the total budget (never the one just stored). */
  private async pruneTotal(keep: string): Promise<void> {
    let over = (await bytesOfAll(this.d.db)) - this.budget.totalBytes;
    while (over > 0) {
      const oldest = (await oldestSnapshots(this.d.db, 20)).filter((o) => o.id !== keep);
      if (oldest.length === 0) return;
      const drop: string[] = [];
      for (const o of oldest) {
        if (over <= 0) break;
        drop.push(o.id);
        over -= o.size;
      }
      await deleteSnapshots(this.d.db, drop);
    }
  }
}
