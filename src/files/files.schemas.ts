// The file record as the API shows it (GET /v1/files/:id, and embedded by the jobs feature), the list item of GET
// /v1/files and its list spec: one TypeBox schema and its type each.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { sql, type SqlBool } from 'kysely';
import type { ListSpec } from '../http/list-query.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const ExtruderUsageSchema = Type.Object({
  index: Type.Integer({ description: '0-based extruder or filament slot (AMS) index.' }),
  type: NullableString('Filament type of that extruder, e.g. "PLA".'),
  used_g: Nullable(Type.Number({ description: 'Grams.' })),
  used_mm: Nullable(Type.Number({ description: 'Filament length in millimetres.' })),
});

export const ThumbnailInfoSchema = Type.Object({
  content_type: Type.Union([Type.Literal('image/png'), Type.Literal('image/jpeg')]),
  width: Type.Integer(),
  height: Type.Integer(),
  size: Type.Integer({ description: 'Bytes.' }),
  url: Type.String({ description: 'Path of the image: /v1/files/{id}/thumbnail.' }),
});

export const SlicedFilamentSchema = Type.Object({
  slot: Type.Integer({ description: "The slicer's 1-based filament slot; a Bambu start maps it to an AMS tray." }),
  type: NullableString('Filament type, e.g. "PLA".'),
  color: NullableString('Colour as the slicer wrote it, e.g. "#FF6600".'),
  used_g: Nullable(Type.Number({ description: 'Grams this plate uses of it.' })),
  used_m: Nullable(Type.Number({ description: 'Metres this plate uses of it.' })),
});

export const PlateSchema = Type.Object({
  index: Type.Integer({ description: '1-based plate number, as in Metadata/plate_N.gcode.' }),
  gcode: Type.String({ description: 'Path of the plate G-code inside the archive.' }),
  gcode_md5: NullableString('Hex MD5 of that G-code as the slicer recorded it.'),
  printer_model_id: NullableString('Bambu model code the plate was sliced for, e.g. "C12" (P1S).'),
  nozzle_diameter: Nullable(Type.Number({ description: 'Millimetres.' })),
  estimated_duration: Nullable(Type.Number({ description: "Seconds, the slicer's prediction." })),
  filament_used_g: Nullable(Type.Number({ description: 'Grams, all filaments.' })),
  filaments: Type.Array(SlicedFilamentSchema),
});

export const FileRecordSchema = Type.Object({
  id: Type.String({ description: 'file_...' }),
  sha256: Type.String({ description: 'Hex SHA-256 of the content; the same content is stored once.' }),
  size: Type.Integer({ description: 'Bytes.' }),
  original_name: Type.String({ description: 'File name of the first upload (or the last path segment of the URL).' }),
  line_count: Type.Integer(),
  sent_lines_total: Type.Integer({ description: 'Commands sent to the printer (comments and blank lines stripped).' }),
  sent_bytes_total: Type.Integer({ description: 'Bytes of those commands, one newline each, before line numbers and checksums.' }),
  slicer: NullableString('PrusaSlicer, SuperSlicer, OrcaSlicer, Bambu Studio, Cura, Simplify3D, ideaMaker, or null.'),
  slicer_version: NullableString('As the slicer wrote it.'),
  estimated_duration: Nullable(Type.Number({ description: 'Seconds, from the slicer.' })),
  filament_used_g: Nullable(Type.Number({ description: 'Grams, all extruders.' })),
  filament_used_mm: Nullable(Type.Number({ description: 'Millimetres of filament, all extruders.' })),
  filament_weight_source: Type.Union([Type.Literal('slicer'), Type.Literal('computed'), Type.Null()], {
    description: 'computed: from the length, filament diameter and density (typical density of the type when the file has none).',
  }),
  filament_type: NullableString('Type of the extruder using the most filament.'),
  extruders: Type.Array(ExtruderUsageSchema),
  nozzle_diameter: Nullable(Type.Number({ description: 'Millimetres.' })),
  layer_height: Nullable(Type.Number({ description: 'Millimetres.' })),
  layer_count: Nullable(Type.Integer()),
  thumbnail: Type.Union([ThumbnailInfoSchema, Type.Null()], { description: 'The largest PNG or JPEG embedded by the slicer.' }),
  thumbnail_url: NullableString('Path of the thumbnail (/v1/files/{id}/thumbnail), null when the file has none: ask for it only when set.'),
  format: Type.Union([Type.Literal('gcode'), Type.Literal('bgcode'), Type.Literal('3mf')], {
    description:
      'gcode (text, any printer), bgcode (Prusa binary G-code: metadata read from its blocks, printed only by PrusaLink printers; line counts are 0) or 3mf (a sliced 3MF, .gcode.3mf: printed only by Bambu printers of the model it was sliced for; the figures describe its first plate; line counts are 0).',
  }),
  printer_model_id: NullableString('3mf: Bambu model code the file was sliced for (e.g. "C12"); null for other formats or when the slicer wrote none.'),
  printer_model: NullableString('3mf: the name of that model (e.g. "P1S"); null when the code is not one we know.'),
  plate_count: Type.Integer({ minimum: 0, description: '3mf: how many sliced plates it holds (a job prints the first); 0 for other formats.' }),
  plates: Type.Array(PlateSchema, { description: '3mf: each sliced plate with its filament per slot; empty for other formats.' }),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.String({ format: 'date-time', description: 'The last upload of this content, or job queued from it by file_id (pruning counts the end of its last job too).' }),
  deleted_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      "When pruning removed the content and thumbnail (the organization's file_retention_days / file_store_max_gb); null while stored. An upload of the same content stores it again.",
  }),
});

/** The object of a file.pruned event: which file went, how big it was, and which rule removed it. */
export const PrunedFileSchema = Type.Object({
  id: Type.String({ description: 'file_...' }),
  original_name: Type.String(),
  size: Type.Integer({ description: 'Bytes of the content.' }),
  reason: Type.Union([Type.Literal('retention'), Type.Literal('store_size')]),
});
export type PrunedFile = Static<typeof PrunedFileSchema>;

export type FileRecord = Static<typeof FileRecordSchema>;

/** A file as GET /v1/files lists it: the record, and how the jobs used it. */
export const FileListItemSchema = Type.Composite([
  FileRecordSchema,
  Type.Object({
    jobs_count: Type.Integer({ minimum: 0, description: 'How many jobs were queued from this file (every copy counts), whatever became of them.' }),
    last_job_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the newest of those jobs was queued; null when none was (the file was only stored).',
    }),
  }),
]);
export type FileListItem = Static<typeof FileListItemSchema>;

/** `like` pattern text: the user's %, _ and \ match themselves (both engines honour `escape '\'`). */
const likeText = (v: string): string => v.replace(/[\\%_]/g, (c) => `\\${c}`);

export const FILES_LIST_SPEC: ListSpec = {
  fields: Object.keys(FileListItemSchema.properties),
  // last_used_at is NULL on rows from before it existed: the select orders by `used_at`, the value the record shows.
  sortable: { last_used_at: 'used_at', created_at: 'created_at', original_name: 'original_name', size: 'size' },
  defaultSort: '-last_used_at',
  filters: {
    q: {
      type: 'string',
      description: 'Only files whose original_name contains this text (case-insensitive for ASCII letters).',
      where: (v) => sql<SqlBool>`lower(original_name) like lower(${`%${likeText(String(v))}%`}) escape '\\'`,
    },
    format: { column: 'format', type: 'enum', values: ['gcode', 'bgcode', '3mf'] },
    deleted: {
      type: 'boolean',
      description: 'true: only files pruning removed (deleted_at set); false: only files still stored (they can be queued).',
      where: (v) => (v === 1 ? sql<SqlBool>`deleted_at is not null` : sql<SqlBool>`deleted_at is null`),
    },
  },
  dateRange: { column: 'created_at' },
};
export type ExtruderUsageRecord = Static<typeof ExtruderUsageSchema>;
export type PlateRecord = Static<typeof PlateSchema>;
