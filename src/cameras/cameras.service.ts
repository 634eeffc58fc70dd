// The cameras feature: records (credentials sealed), one feed per camera with a stream, and pictures on demand.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/event-bus.js';
import { AppError, badRequest, invalidState, notFound } from '../errors.js';
import type { HostResolver } from '../files/url-guard.js';
import type { ListSpec } from '../http/list-query.js';
import { newId } from '../ids.js';
import type { SecretBox } from '../printers/secret-box.js';
import { runListQuery, type ListPage, type ListQuery } from '../storage/list-page.js';
import type { Database } from '../storage/schema.js';
import { asFault, type CameraFault } from './camera-fault.js';
import { CameraFeed, DEFAULT_FEED_TUNING, type FeedState, type FeedTuning } from './camera-feed.js';
import type { CameraHttpOptions } from './camera-http.js';
import { fetchSnapshot } from './camera-snapshot.js';
import { splitCameraUrl } from './camera-url.js';
import { camerasOfPrinter, deleteCamera, findCamera, insertCamera, selectCameras, updateCamera, type CameraRow } from './cameras.repository.js';
import type { CameraCreateInput, CameraRecord, CameraUpdateInput } from './cameras.schemas.js';
import type { FoundWebcam } from './printer-webcams.js';

export interface CameraTuning extends FeedTuning {
  headersTimeoutMs: number;
  /** How long a snapshot may take, from a snapshot URL or the stream's next frame. */
  snapshotTimeoutMs: number;
  /** A stream frame at most this old answers a snapshot request. */
  freshFrameMs: number;
}

export const DEFAULT_CAMERA_TUNING: CameraTuning = { ...DEFAULT_FEED_TUNING, headersTimeoutMs: 5000, snapshotTimeoutMs: 8000, freshFrameMs: 2000 };

export interface CamerasServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  secrets: SecretBox;
  resolveHost: HostResolver;
  /** printer.updated goes out when a printer's cameras change (dashboards read them again). */
  bus: EventBus;
  tuning?: Partial<CameraTuning>;
}

export const CAMERA_LIST_SPEC: ListSpec = {
  fields: ['id', 'printer_id', 'name', 'source', 'stream_url', 'snapshot_url', 'has_stream_credentials', 'has_snapshot_credentials', 'rotation', 'flip_horizontal', 'flip_vertical', 'refresh_seconds', 'enabled', 'job_pictures', 'job_picture_step', 'state', 'snapshot_path', 'stream_path', 'created_at', 'updated_at'],
  sortable: { name: 'name', created_at: 'created_at', updated_at: 'updated_at' },
  filters: { printer_id: { column: 'printer_id', type: 'string', description: 'Only the cameras of this printer.' } },
};

/** Per-camera counters for /metrics. */
export interface CameraStats {
  id: string;
  printer_id: string;
  frames_in: number;
  frames_out: number;
  dropped: number;
  viewers: number;
  reconnects: number;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const bool = (v: boolean | undefined): number | undefined => (v === undefined ? undefined : v ? 1 : 0);

export class CamerasService {
  private readonly tuning: CameraTuning;
  private readonly http: CameraHttpOptions;
  /** Live feeds by camera id, with the source they were opened for (a changed URL opens a new one). */
  private readonly feeds = new Map<string, { key: string; printerId: string; feed: CameraFeed }>();
  /** The last snapshot-URL outcome of cameras without a live stream, for their state. */
  private readonly snapshotOutcome = new Map<string, { at: number; error: CameraFault | null }>();

  constructor(private readonly d: CamerasServiceDeps) {
    this.tuning = { ...DEFAULT_CAMERA_TUNING, ...d.tuning };
    this.http = { resolve: d.resolveHost, headersTimeoutMs: this.tuning.headersTimeoutMs, maxRedirects: 3 };
  }

  async list(q: ListQuery): Promise<ListPage<Partial<CameraRecord>>> {
    return runListQuery(selectCameras(this.d.db), q, (row) => this.record(row));
  }

  async get(id: string): Promise<CameraRecord> {
    return this.record(await this.row(id));
  }

  async create(printerId: string, input: CameraCreateInput): Promise<CameraRecord> {
    const printer = await this.d.db.selectFrom('printers').select('id').where('id', '=', printerId).executeTakeFirst();
    if (!printer) throw notFound('printer', printerId);
    const id = newId('cam');
    const now = new Date(this.d.clock.now()).toISOString();
    const stream = this.sealUrl(id, 'stream_url', input.stream_url);
    const snapshot = this.sealUrl(id, 'snapshot_url', input.snapshot_url);
    if (!stream.url && !snapshot.url) throw badRequest('stream_url or snapshot_url: a camera needs at least one of them');
    await insertCamera(this.d.db, {
      id,
      printer_id: printerId,
      name: input.name.trim(),
      source: 'url',
      stream_url: stream.url,
      stream_credentials_sealed: stream.sealed,
      snapshot_url: snapshot.url,
      snapshot_credentials_sealed: snapshot.sealed,
      rotation: input.rotation ?? 0,
      flip_horizontal: bool(input.flip_horizontal) ?? 0,
      flip_vertical: bool(input.flip_vertical) ?? 0,
      refresh_seconds: input.refresh_seconds ?? 10,
      enabled: bool(input.enabled) ?? 1,
      job_pictures: bool(input.job_pictures) ?? 1,
      job_picture_step: input.job_picture_step ?? null,
      created_at: now,
      updated_at: now,
    });
    this.d.bus.emit('printer.updated', { printer_id: printerId, reason: 'camera added' });
    return this.get(id);
  }

  async update(id: string, input: CameraUpdateInput): Promise<CameraRecord> {
    const row = await this.row(id);
    const patch: Parameters<typeof updateCamera>[2] = { updated_at: new Date(this.d.clock.now()).toISOString() };
    if (input.name !== undefined) patch.name = input.name.trim();
    if (input.stream_url !== undefined) {
      const s = this.sealUrl(id, 'stream_url', input.stream_url);
      patch.stream_url = s.url;
      patch.stream_credentials_sealed = s.sealed;
    }
    if (input.snapshot_url !== undefined) {
      const s = this.sealUrl(id, 'snapshot_url', input.snapshot_url);
      patch.snapshot_url = s.url;
      patch.snapshot_credentials_sealed = s.sealed;
    }
    const streamAfter = patch.stream_url !== undefined ? patch.stream_url : row.stream_url;
    const snapshotAfter = patch.snapshot_url !== undefined ? patch.snapshot_url : row.snapshot_url;
    if (!streamAfter && !snapshotAfter) throw badRequest('stream_url or snapshot_url: a camera needs at least one of them');
    if (input.rotation !== undefined) patch.rotation = input.rotation;
    if (input.flip_horizontal !== undefined) patch.flip_horizontal = bool(input.flip_horizontal);
    if (input.flip_vertical !== undefined) patch.flip_vertical = bool(input.flip_vertical);
    if (input.refresh_seconds !== undefined) patch.refresh_seconds = input.refresh_seconds;
    if (input.enabled !== undefined) patch.enabled = bool(input.enabled);
    if (input.job_pictures !== undefined) patch.job_pictures = bool(input.job_pictures);
    if (input.job_picture_step !== undefined) patch.job_picture_step = input.job_picture_step;
    await updateCamera(this.d.db, id, patch);
    this.snapshotOutcome.delete(id);
    // Viewers of the old address are cut; they reconnect to the new one.
    if (input.stream_url !== undefined || input.enabled === false) this.dropFeed(id);
    this.d.bus.emit('printer.updated', { printer_id: row.printer_id, reason: 'camera changed' });
    return this.get(id);
  }

  async remove(id: string): Promise<void> {
    const row = await this.row(id);
    if (!(await deleteCamera(this.d.db, id))) throw notFound('camera', id);
    this.dropFeed(id);
    this.snapshotOutcome.delete(id);
    this.d.bus.emit('printer.updated', { printer_id: row.printer_id, reason: 'camera removed' });
  }

  /**
   * Makes the printer's cameras of `source` (moonraker, octoprint) what its server lists now, matched by name: new ones
   * added, changed addresses and orientation written (the owner's refresh and job picture settings stay), gone ones removed.
   */
  async syncFound(printerId: string, source: 'moonraker' | 'octoprint', found: readonly FoundWebcam[]): Promise<void> {
    const existing = (await camerasOfPrinter(this.d.db, printerId)).filter((c) => c.source === source);
    const now = new Date(this.d.clock.now()).toISOString();
    const changes: string[] = [];
    const usable = found.filter((w) => {
      try {
        for (const [field, url] of [['stream_url', w.stream_url], ['snapshot_url', w.snapshot_url]] as const) if (url) splitCameraUrl(url, field);
        return true;
      } catch {
        // An address of a forbidden class is never taken over from the printer either.
        return false;
      }
    });
    for (const w of usable) {
      const fields = {
        stream_url: w.stream_url,
        snapshot_url: w.snapshot_url,
        rotation: w.rotation,
        flip_horizontal: w.flip_horizontal ? 1 : 0,
        flip_vertical: w.flip_vertical ? 1 : 0,
        enabled: w.enabled ? 1 : 0,
      };
      const row = existing.find((c) => c.name === w.name);
      if (!row) {
        await insertCamera(this.d.db, {
          id: newId('cam'), printer_id: printerId, name: w.name, source, ...fields, stream_credentials_sealed: null, snapshot_credentials_sealed: null,
          refresh_seconds: 10, job_pictures: 1, job_picture_step: null, created_at: now, updated_at: now,
        });
        changes.push(`added ${w.name}`);
        continue;
      }
      if ((Object.keys(fields) as Array<keyof typeof fields>).some((k) => row[k] !== fields[k])) {
        await updateCamera(this.d.db, row.id, { ...fields, updated_at: now });
        if (row.stream_url !== fields.stream_url) this.dropFeed(row.id);
        changes.push(`changed ${w.name}`);
      }
    }
    for (const row of existing) {
      if (usable.some((w) => w.name === row.name)) continue;
      await deleteCamera(this.d.db, row.id);
      this.dropFeed(row.id);
      changes.push(`removed ${row.name}`);
    }
    if (changes.length > 0) this.d.bus.emit('printer.updated', { printer_id: printerId, reason: `${source} webcams: ${changes.join(', ')}` });
  }

  /** The current picture: the live stream's last frame when fresh, else the snapshot URL, else the stream's next frame. */
  async snapshot(id: string): Promise<Buffer> {
    const row = await this.row(id);
    if (!row.enabled) throw invalidState(`camera ${id} is disabled`);
    try {
      return await this.capture(row, this.tuning.snapshotTimeoutMs);
    } catch (err) {
      const fault = asFault(err);
      throw new AppError(502, 'camera_unavailable', `camera "${row.name}": ${fault.message}`, fault.code);
    }
  }

  /** The enabled cameras of a printer that photograph its jobs. */
  async jobCameras(printerId: string): Promise<CameraRow[]> {
    return (await camerasOfPrinter(this.d.db, printerId)).filter((c) => c.enabled === 1 && c.job_pictures === 1);
  }

  /** One picture of `row` within `timeoutMs`, or the CameraFault why not (also kept for the camera's state). */
  async capture(row: CameraRow, timeoutMs: number): Promise<Buffer> {
    const fresh = row.stream_url ? this.feedOf(row).latest(this.tuning.freshFrameMs) : null;
    if (fresh) return fresh;
    if (row.snapshot_url) {
      try {
        const jpeg = await fetchSnapshot(row.snapshot_url, this.open(row, 'snapshot'), this.http, this.tuning.maxFrameBytes, timeoutMs);
        this.snapshotOutcome.set(row.id, { at: Date.now(), error: null });
        return jpeg;
      } catch (err) {
        this.snapshotOutcome.set(row.id, { at: Date.now(), error: asFault(err) });
        if (!row.stream_url) throw err;
      }
    }
    return this.feedOf(row).nextFrame(timeoutMs);
  }

  /** The feed a live viewer subscribes to: 409 when the camera has no stream or is disabled. */
  async liveFeed(id: string): Promise<CameraFeed> {
    const row = await this.row(id);
    if (!row.enabled) throw invalidState(`camera ${id} is disabled`);
    if (!row.stream_url) throw invalidState(`camera ${id} has no stream_url (only snapshots)`);
    return this.feedOf(row);
  }

  stats(): CameraStats[] {
    return [...this.feeds.entries()].map(([id, { printerId, feed }]) => ({
      id,
      printer_id: printerId,
      frames_in: feed.counters.framesIn,
      frames_out: feed.counters.framesOut,
      dropped: feed.counters.dropped,
      viewers: feed.state().viewers,
      reconnects: feed.counters.reconnects,
    }));
  }

  /** Closes every upstream connection (server stopping). */
  close(): void {
    for (const id of [...this.feeds.keys()]) this.dropFeed(id);
  }

  private async row(id: string): Promise<CameraRow> {
    const row = await findCamera(this.d.db, id);
    if (!row) throw notFound('camera', id);
    return row;
  }

  private sealUrl(id: string, field: 'stream_url' | 'snapshot_url', text: string | null | undefined): { url: string | null; sealed: string | null } {
    if (text === undefined || text === null) return { url: null, sealed: null };
    const { url, credentials } = splitCameraUrl(text, field);
    return { url, sealed: credentials === null ? null : this.d.secrets.seal(credentials, `${id}:${field}`) };
  }

  private open(row: CameraRow, which: 'stream' | 'snapshot'): string | null {
    const sealed = which === 'stream' ? row.stream_credentials_sealed : row.snapshot_credentials_sealed;
    return sealed === null ? null : this.d.secrets.open(sealed, `${row.id}:${which}_url`);
  }

  private feedOf(row: CameraRow): CameraFeed {
    const key = `${row.stream_url}\n${row.stream_credentials_sealed ?? ''}`;
    const held = this.feeds.get(row.id);
    if (held && held.key === key) return held.feed;
    held?.feed.close();
    const feed = new CameraFeed({ url: row.stream_url as string, credentials: this.open(row, 'stream') }, this.http, this.tuning);
    this.feeds.set(row.id, { key, printerId: row.printer_id, feed });
    return feed;
  }

  private dropFeed(id: string): void {
    this.feeds.get(id)?.feed.close();
    this.feeds.delete(id);
  }

  private state(row: CameraRow): FeedState {
    const feed = this.feeds.get(row.id)?.feed.state();
    const shot = this.snapshotOutcome.get(row.id);
    const idle: FeedState = { status: 'idle', error: null, viewers: 0, last_frame_at: null };
    if (feed && feed.status !== 'idle') return feed;
    if (!shot) return feed ?? idle;
    return {
      status: shot.error ? 'error' : 'idle',
      error: shot.error ? { code: shot.error.code, message: shot.error.message } : null,
      viewers: 0,
      last_frame_at: shot.error ? (feed?.last_frame_at ?? null) : shot.at,
    };
  }

  private record(row: CameraRow): CameraRecord {
    const state = this.state(row);
    return {
      id: row.id,
      printer_id: row.printer_id,
      name: row.name,
      source: row.source,
      stream_url: row.stream_url,
      snapshot_url: row.snapshot_url,
      has_stream_credentials: row.stream_credentials_sealed !== null,
      has_snapshot_credentials: row.snapshot_credentials_sealed !== null,
      rotation: row.rotation,
      flip_horizontal: row.flip_horizontal === 1,
      flip_vertical: row.flip_vertical === 1,
      refresh_seconds: row.refresh_seconds,
      enabled: row.enabled === 1,
      job_pictures: row.job_pictures === 1,
      job_picture_step: row.job_picture_step,
      state: { ...state, last_frame_at: iso(state.last_frame_at) },
      snapshot_path: `/v1/cameras/${row.id}/snapshot`,
      stream_path: row.stream_url ? `/v1/cameras/${row.id}/stream` : null,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }
}
