// A job row as the API shows it: the stored fields plus the live counters of a running session.
import { estimateRemaining } from './job-eta.js';
import { thumbnailPath } from '../files/file-record.js';
import type { JobReadRow, JobRow } from './jobs.repository.js';
import type { PrintOptions } from '../printers/printer-link.js';
import type { PendingAction } from '../printers/printer-state.js';

/** What a live session knows of a running job, fresher than the row. */
export interface LiveJobCounters {
  progress: number;
  elapsedSeconds: number;
  /** A pause or cancel accepted while the printer sits in a wait it cannot break; it happens when the wait ends. */
  pendingAction?: PendingAction | null;
}

export interface JobRecord {
  id: string;
  name: string;
  status: JobRow['status'];
  priority: JobRow['priority'];
  printer_id: string | null;
  progress: number;
  file_url: string | null;
  file_id: string | null;
  /** The file's thumbnail (GET /v1/files/:id/thumbnail), or null when the file has none or was pruned: nobody requests a 404. */
  thumbnail_url: string | null;
  /** The newest camera picture of the job (GET /v1/jobs/:id/snapshots/:snapshot_id), or null when none was taken. */
  last_snapshot_url: string | null;
  /** Pruning removed the stored file (the organization's file retention policy); the record stays. */
  file_deleted: boolean;
  estimated_duration: number | null;
  elapsed_time: number;
  estimated_remaining: number | null;
  /** `used`: grams per tool measured on the wire ({"0": 12.3}), updated live every few seconds; null before it ran. */
  material: {
    type: string | null;
    color: string | null;
    estimated_usage: number | null;
    used: Record<string, number> | null;
    used_basis: JobRow['material_used_basis'];
  };
  /**
   * queue: created through the API or the dashboard; slicer: uploaded from a slicer through an emulated host API;
   * external: a print started on the printer itself, recorded when it ended.
   */
  origin: JobRow['origin'] | 'slicer';
  /** The host API a slicer uploaded through (octoprint, prusalink, moonraker); null for other origins. */
  slicer_api: JobRow['slicer_api'];
  /** Filament + machine time + energy in the organization currency, set when the job ended; null before. */
  cost: number | null;
  nozzle_diameter: number | null;
  print_options: PrintOptions | null;
  group: string | null;
  tags: string[];
  batch_id: string | null;
  waiting_reason: string | null;
  /** Words beside waiting_reason (printer_refused: which printer refused, and its message); null for most reasons. */
  waiting_detail: string | null;
  /** `pause` or `cancel` accepted inside a heat-up or dwell the firmware cannot break; null otherwise. */
  pending_action: PendingAction | null;
  error: { code: string; message: string } | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  updated_at: string;
  [key: string]: unknown;
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

export function toJobRecord(row: JobReadRow, live?: LiveJobCounters | null): JobRecord {
  const running = row.status === 'printing' || row.status === 'paused';
  const progress = running && live ? live.progress : row.status === 'completed' ? 100 : row.progress;
  const elapsed = running && live ? live.elapsedSeconds : row.elapsed_time;
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    priority: row.priority,
    printer_id: row.printer_id,
    progress: round1(progress),
    file_url: row.file_url,
    file_id: row.origin === 'external' ? null : row.file_id,
    thumbnail_url: row.file_has_thumbnail ? thumbnailPath(row.file_id) : null,
    last_snapshot_url: row.last_snapshot_id ? `/v1/jobs/${row.id}/snapshots/${row.last_snapshot_id}` : null,
    file_deleted: Boolean(row.file_deleted),
    estimated_duration: row.estimated_duration,
    elapsed_time: Math.round(elapsed),
    estimated_remaining: running || row.status === 'queued' ? estimateRemaining(row.estimated_duration, progress, elapsed) : null,
    material: {
      type: row.material_type,
      color: row.material_color,
      estimated_usage: row.material_estimated_usage,
      used: row.material_used ? (JSON.parse(row.material_used) as Record<string, number>) : null,
      used_basis: row.material_used_basis,
    },
    origin: row.slicer_api !== null && row.slicer_api !== undefined ? 'slicer' : row.origin,
    slicer_api: row.slicer_api ?? null,
    cost: row.cost,
    nozzle_diameter: row.nozzle_diameter,
    print_options: row.print_options ? (JSON.parse(row.print_options) as PrintOptions) : null,
    group: row.group_name,
    tags: JSON.parse(row.tags) as string[],
    batch_id: row.batch_id,
    waiting_reason: row.status === 'queued' ? row.waiting_reason : null,
    waiting_detail: row.status === 'queued' ? row.waiting_detail : null,
    pending_action: running && live ? (live.pendingAction ?? null) : null,
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
    created_at: row.created_at,
    started_at: row.started_at,
    completed_at: row.completed_at,
    updated_at: row.updated_at,
  };
}
