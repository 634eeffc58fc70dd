// A stored sliced 3MF (.gcode.3mf, what Bambu printers print) read as the files feature records any upload: its plates'
// G-code, the first plate's thumbnail, and slice_info.config's printer model, time, grams and filament per slot.
import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import { containerInspection, GcodeInspector, type Inspection } from './gcode-inspector.js';
import { parseSliceInfo, type SliceInfo, type SlicedFilament } from './slice-info.js';
import type { ExtruderUsage, SlicerMetadata } from './slicer-metadata.js';
import type { Thumbnail } from './thumbnail-collector.js';
import { ZipArchive, ZipError, type ZipEntry } from '../archive/zip-reader.js';

/** What a Bambu job needs of the file beyond the common record: which model it is for, and each plate. */
export interface SlicedProject {
  /** Bambu's model code of the first sliced plate (e.g. "C12", a P1S); null when the slicer wrote none. */
  printer_model_id: string | null;
  plates: PlateInfo[];
}

export interface PlateInfo {
  index: number;
  /** Path of its G-code inside the archive (what a Bambu start names). */
  gcode: string;
  /** Hex MD5 of that G-code as the slicer recorded it (Metadata/plate_N.gcode.md5), lower case; null when absent. */
  gcode_md5: string | null;
  printer_model_id: string | null;
  nozzle_diameter: number | null;
  estimated_duration: number | null;
  filament_used_g: number | null;
  filaments: SlicedFilament[];
}

export type SlicedInspection = Inspection & { sliced: SlicedProject };

/** Config files and thumbnails are small; more than this is not a slicer's. */
const MAX_METADATA_BYTES = 8 * 1024 * 1024;
const PLATE_GCODE = /^Metadata\/plate_(\d+)\.gcode$/;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const invalid = (message: string): AppError => new AppError(422, 'file_invalid', message, '3mf');

export interface ThreemfLimits {
  /** The most bytes a plate's G-code may inflate to (the upload limit). */
  maxGcodeBytes: number;
  /** The largest thumbnail kept; a larger one is skipped. */
  maxThumbnailBytes: number;
}

/** Reads the archive; a damaged one, a zip bomb or a 3MF that was never sliced is 422 file_invalid saying which. */
export async function inspect3mf(filePath: string, size: number, limits: ThreemfLimits): Promise<SlicedInspection> {
  let zip: ZipArchive;
  try {
    zip = await ZipArchive.open(filePath);
  } catch (err) {
    throw err instanceof ZipError ? invalid(`not a valid 3MF (ZIP) archive: ${err.message}`) : err;
  }
  try {
    return await inspectOpen(zip, size, limits);
  } catch (err) {
    throw err instanceof ZipError ? invalid(`not a valid 3MF (ZIP) archive: ${err.message}`) : err;
  } finally {
    await zip.close();
  }
}

async function inspectOpen(zip: ZipArchive, size: number, limits: ThreemfLimits): Promise<SlicedInspection> {
  const gcodeEntries = [...zip.entries.values()]
    .map((e) => ({ entry: e, index: Number(PLATE_GCODE.exec(e.name)?.[1] ?? NaN) }))
    .filter((p) => Number.isInteger(p.index))
    .sort((a, b) => a.index - b.index);
  if (gcodeEntries.length === 0) {
    const what = zip.entries.has('3D/3dmodel.model') ? 'a 3MF project that is not sliced' : 'a ZIP archive that is not a sliced 3MF';
    throw invalid(`${what}: it holds no plate G-code (Metadata/plate_N.gcode). Slice it and export the sliced file (.gcode.3mf) from Bambu Studio or OrcaSlicer`);
  }
  const infoEntry = zip.entries.get('Metadata/slice_info.config');
  const info: SliceInfo = infoEntry ? parseSliceInfo((await zip.read(infoEntry, MAX_METADATA_BYTES)).toString('utf8')) : { client_version: null, plates: [] };
  const plates: PlateInfo[] = [];
  for (const { entry, index } of gcodeEntries) {
    const slice = info.plates.find((p) => p.index === index);
    const md5Entry = zip.entries.get(`${entry.name}.md5`);
    const md5 = md5Entry ? (await zip.read(md5Entry, 1024)).toString('latin1').trim().toLowerCase() : null;
    plates.push({
      index,
      gcode: entry.name,
      gcode_md5: md5 && /^[0-9a-f]{32}$/.test(md5) ? md5 : null,
      printer_model_id: slice?.printer_model_id ?? null,
      nozzle_diameter: slice?.nozzle_diameter ?? null,
      estimated_duration: slice?.prediction_s ?? null,
      filament_used_g: slice?.weight_g ?? null,
      filaments: slice?.filaments ?? [],
    });
  }
  // The first plate is what a job prints and what the record's figures describe.
  const first = plates[0]!;
  const gcode = await readPlateGcode(zip, gcodeEntries[0]!.entry, first.gcode_md5, limits.maxGcodeBytes);
  const fromGcode = gcode.metadata;
  const used = first.filaments.filter((f) => (f.used_g ?? 0) > 0 || (f.used_m ?? 0) > 0);
  const extruders: ExtruderUsage[] = used.map((f) => ({ index: f.slot - 1, type: f.type, used_g: f.used_g, used_mm: f.used_m === null ? null : f.used_m * 1000 }));
  const heaviest = [...used].sort((a, b) => (b.used_g ?? 0) - (a.used_g ?? 0))[0];
  const totalMm = used.some((f) => f.used_m !== null) ? used.reduce((s, f) => s + (f.used_m ?? 0) * 1000, 0) : null;
  const grams = first.filament_used_g ?? fromGcode?.filament_used_g ?? null;
  const version = info.client_version ?? fromGcode?.slicer_version ?? null;
  const metadata: SlicerMetadata = {
    slicer: fromGcode?.slicer ?? (info.client_version ? 'Bambu Studio' : null),
    slicer_version: version,
    estimated_duration: first.estimated_duration ?? fromGcode?.estimated_duration ?? null,
    filament_used_g: grams,
    filament_used_mm: totalMm ?? fromGcode?.filament_used_mm ?? null,
    filament_weight_source: grams === null ? null : 'slicer',
    filament_type: heaviest?.type ?? fromGcode?.filament_type ?? null,
    extruders: extruders.length > 0 ? extruders : (fromGcode?.extruders ?? []),
    nozzle_diameter: first.nozzle_diameter ?? fromGcode?.nozzle_diameter ?? null,
    layer_height: fromGcode?.layer_height ?? null,
    layer_count: fromGcode?.layer_count ?? null,
  };
  const thumbnail = await plateThumbnail(zip, first.index, limits.maxThumbnailBytes);
  return { ...containerInspection(size, metadata, thumbnail), sliced: { printer_model_id: first.printer_model_id, plates } };
}

/**
 * Inflates the plate's G-code through the text inspector (bounded by its declared size and the upload limit) for
 * what only the G-code says (layers, slicer), checking it against the slicer's MD5. Its line rules are for streamed
 * files: a Bambu printer reads the file itself, so a line our serial link could not send does not refuse it.
 */
async function readPlateGcode(zip: ZipArchive, entry: ZipEntry, md5: string | null, maxBytes: number): Promise<{ metadata: Inspection['metadata'] | null }> {
  const inspector = new GcodeInspector({ maxThumbnailBase64Bytes: 0 });
  const hash = createHash('md5');
  for await (const chunk of await zip.stream(entry, maxBytes)) {
    hash.update(chunk as Buffer);
    inspector.push(chunk as Buffer);
  }
  if (md5 !== null && hash.digest('hex') !== md5) throw invalid(`${entry.name} does not match its recorded MD5 (${entry.name}.md5): the archive is damaged`);
  const outcome = inspector.end();
  if (outcome.ok) return { metadata: outcome.inspection.metadata };
  const { reason, message } = outcome.invalid;
  if (reason === 'empty' || reason === 'binary' || reason === 'no_gcode_command') throw invalid(`${entry.name} is not G-code: ${message}`);
  return { metadata: null };
}

/** Metadata/plate_N.png (the plate as the slicer drew it), when it is a PNG no larger than the limit. */
async function plateThumbnail(zip: ZipArchive, index: number, maxBytes: number): Promise<Thumbnail | null> {
  const entry = zip.entries.get(`Metadata/plate_${index}.png`);
  if (!entry || entry.size > maxBytes) return null;
  const data = await zip.read(entry, maxBytes);
  if (data.length < 24 || !data.subarray(0, 8).equals(PNG_MAGIC)) return null;
  return { format: 'png', contentType: 'image/png', width: data.readUInt32BE(16), height: data.readUInt32BE(20), data };
}
