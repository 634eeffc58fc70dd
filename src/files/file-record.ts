// Turns a files row (plus the inspection of new content) into the API's file record, and an inspection into a row.
import type { Inspection } from './gcode-inspector.js';
import type { FileListRow, FileRow } from './files.repository.js';
import type { ExtruderUsageRecord, FileListItem, FileRecord, PlateRecord } from './files.schemas.js';
import { bambuModelName } from './slice-info.js';
import type { SlicedProject } from './threemf-inspection.js';

export const thumbnailPath = (id: string): string => `/v1/files/${id}/thumbnail`;

export function toFileRecord(row: FileRow): FileRecord {
  // A pruned file keeps its record (the jobs that printed it name it) but has no image to point at.
  const thumbnailType = row.deleted_at === null ? row.thumbnail_type : null;
  const plates = JSON.parse(row.plates ?? '[]') as PlateRecord[];
  return {
    id: row.id,
    sha256: row.sha256,
    size: row.size,
    original_name: row.original_name,
    line_count: row.line_count,
    sent_lines_total: row.sent_lines_total,
    sent_bytes_total: row.sent_bytes_total,
    slicer: row.slicer,
    slicer_version: row.slicer_version,
    estimated_duration: row.estimated_duration,
    filament_used_g: row.filament_used_g,
    filament_used_mm: row.filament_used_mm,
    filament_weight_source: row.filament_weight_source,
    filament_type: row.filament_type,
    extruders: JSON.parse(row.extruders) as ExtruderUsageRecord[],
    nozzle_diameter: row.nozzle_diameter,
    layer_height: row.layer_height,
    layer_count: row.layer_count,
    thumbnail:
      thumbnailType === null
        ? null
        : {
            content_type: thumbnailType,
            width: row.thumbnail_width ?? 0,
            height: row.thumbnail_height ?? 0,
            size: row.thumbnail_size ?? 0,
            url: thumbnailPath(row.id),
          },
    thumbnail_url: thumbnailType === null ? null : thumbnailPath(row.id),
    format: row.format,
    printer_model_id: row.printer_model_id,
    printer_model: bambuModelName(row.printer_model_id),
    plate_count: plates.length,
    plates,
    created_at: row.created_at,
    last_used_at: row.last_used_at ?? row.created_at,
    deleted_at: row.deleted_at,
  };
}

export function toFileListItem(row: FileListRow): FileListItem {
  const { jobs_count, last_job_at, used_at: _usedAt, ...file } = row;
  return { ...toFileRecord(file), jobs_count: Number(jobs_count ?? 0), last_job_at: last_job_at ?? null };
}

export function rowFromInspection(
  fields: { id: string; sha256: string; originalName: string; createdAt: string; format: FileRow['format'] },
  i: Inspection & { sliced?: SlicedProject },
): FileRow {
  const m = i.metadata;
  return {
    id: fields.id,
    sha256: fields.sha256,
    size: i.size,
    original_name: fields.originalName,
    line_count: i.line_count,
    sent_lines_total: i.sent_lines_total,
    sent_bytes_total: i.sent_bytes_total,
    slicer: m.slicer,
    slicer_version: m.slicer_version,
    estimated_duration: m.estimated_duration,
    filament_used_g: m.filament_used_g,
    filament_used_mm: m.filament_used_mm,
    filament_weight_source: m.filament_weight_source,
    filament_type: m.filament_type,
    extruders: JSON.stringify(m.extruders),
    nozzle_diameter: m.nozzle_diameter,
    layer_height: m.layer_height,
    layer_count: m.layer_count,
    thumbnail_type: i.thumbnail?.contentType ?? null,
    thumbnail_width: i.thumbnail?.width ?? null,
    thumbnail_height: i.thumbnail?.height ?? null,
    thumbnail_size: i.thumbnail?.data.length ?? null,
    format: fields.format,
    printer_model_id: i.sliced?.printer_model_id ?? null,
    plates: JSON.stringify(i.sliced?.plates ?? []),
    created_at: fields.createdAt,
    last_used_at: fields.createdAt,
    deleted_at: null,
  };
}
