// A stored Prusa binary G-code (.bgcode) read as the files feature records any upload: its metadata blocks give the
// estimated time, filament, nozzle and layer height, and its largest PNG or JPEG thumbnail is kept.
import { AppError } from '../errors.js';
import { BgcodeError, readBgcodeMetadata, type BgcodeMetadata } from './bgcode-reader.js';
import { containerInspection, type Inspection } from './gcode-inspector.js';
import type { Thumbnail } from './thumbnail-collector.js';
import type { SlicerMetadata } from './slicer-metadata.js';

export const BGCODE_MAGIC = Buffer.from('GCDE', 'latin1');

/** Whether the first bytes of a file are a .bgcode container's. */
export const startsAsBgcode = (head: Buffer): boolean => head.length >= 4 && head.subarray(0, 4).equals(BGCODE_MAGIC);

/** The largest thumbnail we can serve (PNG or JPEG; QOI is Prusa's screen format, which browsers cannot show). */
function largestServable(meta: BgcodeMetadata): Thumbnail | null {
  let best: Thumbnail | null = null;
  for (const t of meta.thumbnails) {
    if (t.format !== 'png' && t.format !== 'jpg') continue;
    if (best && best.width * best.height >= t.width * t.height) continue;
    best = { format: t.format, contentType: t.format === 'png' ? 'image/png' : 'image/jpeg', width: t.width, height: t.height, data: t.data };
  }
  return best;
}

/** Reads the container (every block's CRC checked); a damaged or truncated file is 422 file_invalid saying where. */
export async function inspectBgcode(filePath: string, size: number): Promise<Inspection> {
  let meta: BgcodeMetadata;
  try {
    meta = await readBgcodeMetadata(filePath);
  } catch (err) {
    if (err instanceof BgcodeError) throw new AppError(422, 'file_invalid', `not a valid binary G-code file: ${err.message}`, 'bgcode');
    throw err;
  }
  const grams = meta.filament_used_g;
  // The G-code inside is compressed in blocks: only the printer that reads the container counts its lines.
  const metadata: SlicerMetadata = {
    slicer: meta.producer?.split(/\s+/)[0] ?? null,
    slicer_version: meta.producer?.split(/\s+/)[1] ?? null,
    estimated_duration: meta.estimated_time_s,
    filament_used_g: grams,
    filament_used_mm: meta.filament_used_mm,
    filament_weight_source: grams === null ? null : 'slicer',
    filament_type: meta.filament_type,
    extruders:
      grams === null && meta.filament_used_mm === null ? [] : [{ index: 0, type: meta.filament_type, used_g: grams, used_mm: meta.filament_used_mm }],
    nozzle_diameter: meta.nozzle_diameter_mm,
    layer_height: meta.layer_height_mm,
    layer_count: null,
  };
  return containerInspection(size, metadata, largestServable(meta));
}
