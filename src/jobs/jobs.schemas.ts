// Request schemas (TypeBox: the schema and its type are one definition), the job record schema and the jobs list spec.
import { Type, type Static } from '@sinclair/typebox';
import { sql, type SqlBool } from 'kysely';
import type { ListSpec } from '../http/list-query.js';
import type { JsonSchema } from '../http/validation.js';
import { JOB_STATUSES } from './job-state.js';

export const JOB_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type JobPriority = (typeof JOB_PRIORITIES)[number];

export const JOB_NAME_MAX = 200;
export const TAG_MAX = 50;
export const TAGS_MAX = 20;
export const MATERIAL_FIELD_MAX = 50;
export const COPIES_MAX = 100;

const text = (max: number, description: string) => Type.String({ minLength: 1, maxLength: max, description });
const priority = Type.Union(
  JOB_PRIORITIES.map((p) => Type.Literal(p)),
  { description: 'urgent > high > normal > low; default normal' },
);
const printerRef = Type.String({ pattern: '^prt_[A-Za-z0-9]+$', maxLength: 64, description: 'A printer id (prt_...)' });
const tags = Type.Array(Type.String({ minLength: 1, maxLength: TAG_MAX }), {
  maxItems: TAGS_MAX,
  uniqueItems: true,
  description: `Free labels, at most ${TAGS_MAX} of up to ${TAG_MAX} characters`,
});
/** `material` is a type name ("PLA") or, as an extension, { type, color }. */
const material = Type.Union([
  text(MATERIAL_FIELD_MAX, 'Material type the job needs, e.g. "PLA"'),
  Type.Object(
    { type: text(MATERIAL_FIELD_MAX, 'Material type'), color: Type.Optional(text(MATERIAL_FIELD_MAX, 'Colour, e.g. "black"')) },
    { additionalProperties: false },
  ),
]);

export const PrintOptionsSchema = Type.Object(
  {
    bed_levelling: Type.Optional(Type.Boolean({ description: 'Level the bed before printing (Bambu default: true).' })),
    timelapse: Type.Optional(Type.Boolean({ description: "Record the printer's own timelapse (Bambu default: false)." })),
    flow_calibration: Type.Optional(Type.Boolean({ description: 'Calibrate the flow before printing (Bambu default: false).' })),
  },
  {
    additionalProperties: false,
    description:
      'Extension: options sent with the start to printers that take them (Bambu Lab: project_file); other kinds ignore them. In a multipart create, the field print_options holds this object as JSON text.',
  },
);

/** Fields shared by the JSON and the multipart create. */
const createFields = {
  name: Type.Optional(text(JOB_NAME_MAX, 'Defaults to the file name')),
  priority: Type.Optional(priority),
  printer_id: Type.Optional(printerRef),
  group: Type.Optional(text(100, 'Extension: only printers of this group take the job')),
  material: Type.Optional(material),
  copies: Type.Optional(Type.Integer({ minimum: 1, maximum: COPIES_MAX, description: 'Creates this many jobs (one batch); default 1' })),
  tags: Type.Optional(tags),
  print_options: Type.Optional(PrintOptionsSchema),
};

/** The JSON create names its file one of two ways; exactly one is required (jsonFileSource in job-form.ts says so). */
export const JobCreateBody = Type.Object(
  {
    file_url: Type.Optional(
      Type.String({
        pattern: '^[hH][tT][tT][pP][sS]?://[^\\s]+$',
        maxLength: 2048,
        description: 'http(s) address of the G-code file; the server downloads it before answering. Give this or file_id.',
      }),
    ),
    file_id: Type.Optional(
      Type.String({
        pattern: '^file_[A-Za-z0-9]+$',
        maxLength: 64,
        description:
          'Extension: a file already stored (GET /v1/files), e.g. one a slicer uploaded without printing; queued as it is, ' +
          'nothing is downloaded. 404 when unknown, 410 file_deleted once pruning removed it. Give this or file_url.',
      }),
    ),
    ...createFields,
  },
  { additionalProperties: false },
);
export type JobCreateBody = Static<typeof JobCreateBody>;

/** The multipart form after its text fields were parsed (numbers and lists arrive as strings). */
export const JobCreateForm = Type.Object(
  {
    ...createFields,
    material: Type.Optional(text(MATERIAL_FIELD_MAX, 'Material type the job needs')),
    material_color: Type.Optional(text(MATERIAL_FIELD_MAX, 'Extension: colour the job needs')),
  },
  { additionalProperties: false },
);
export type JobCreateForm = Static<typeof JobCreateForm>;

/** Documentation of the multipart create (OpenAPI). */
export const jobCreateMultipartDoc: JsonSchema = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'The G-code file (.gcode, plain text)' },
    name: { type: 'string', maxLength: JOB_NAME_MAX },
    priority: { type: 'string', enum: [...JOB_PRIORITIES] },
    printer_id: { type: 'string' },
    group: { type: 'string' },
    material: { type: 'string' },
    material_color: { type: 'string' },
    copies: { type: 'integer', minimum: 1, maximum: COPIES_MAX },
    tags: { type: 'string', description: 'Comma-separated, or the field repeated' },
    print_options: { type: 'string', description: 'Extension: JSON text of print_options, e.g. {"timelapse":true}' },
  },
};

export const JobUpdateBody = Type.Object(
  {
    name: Type.Optional(text(JOB_NAME_MAX, 'Any time')),
    tags: Type.Optional(tags),
    priority: Type.Optional(priority),
    printer_id: Type.Optional(Type.Union([printerRef, Type.Null()], { description: 'Pin a queued job to a printer; null unpins' })),
    group: Type.Optional(Type.Union([text(100, 'Group'), Type.Null()])),
    material: Type.Optional(Type.Union([material, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type JobUpdateBody = Static<typeof JobUpdateBody>;

const nullable = (s: JsonSchema): JsonSchema => ({ anyOf: [s, { type: 'null' }] });
const timestamp: JsonSchema = { type: 'string', format: 'date-time' };

export const jobRecordSchema: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'job_...' },
    name: { type: 'string' },
    status: { type: 'string', enum: [...JOB_STATUSES] },
    priority: { type: 'string', enum: [...JOB_PRIORITIES] },
    printer_id: nullable({ type: 'string' }),
    progress: { type: 'number', description: 'Percent 0..100 of the G-code bytes (comments excluded) acknowledged' },
    file_url: nullable({ type: 'string' }),
    file_id: nullable({ type: 'string', description: 'Extension: the stored file (GET /v1/files/:id); null for an external job' }),
    thumbnail_url: nullable({
      type: 'string',
      description: "Extension: the file's thumbnail (/v1/files/{file_id}/thumbnail); null when the file has none or was pruned",
    }),
    last_snapshot_url: nullable({
      type: 'string',
      description:
        "Extension: the job's newest camera picture (/v1/jobs/{id}/snapshots/{snapshot_id}, image/jpeg): at the end of a job its end picture, taken before job.completed / job.failed are sent; null when no camera took one",
    }),
    file_deleted: {
      type: 'boolean',
      description:
        "Extension: true once pruning removed the job's stored file (the organization's file_retention_days / file_store_max_gb); the record stays, its file's content and thumbnail are gone (410 file_deleted)",
    },
    estimated_duration: nullable({ type: 'number', description: 'Seconds, from the slicer metadata' }),
    elapsed_time: { type: 'number', description: 'Seconds printing, pauses excluded' },
    estimated_remaining: nullable({ type: 'number', description: 'Extension: seconds, slicer estimate corrected by measured progress' }),
    material: {
      type: 'object',
      properties: {
        type: nullable({ type: 'string' }),
        color: nullable({ type: 'string' }),
        estimated_usage: nullable({ type: 'number', description: 'Grams' }),
        used: nullable({
          type: 'object',
          additionalProperties: { type: 'number' },
          description: 'Extension: grams per tool ({"0": 12.3}) measured on the wire from the acknowledged lines; updated every few seconds while printing',
        }),
        used_basis: nullable({
          type: 'string',
          enum: ['wire', 'file_position', 'progress_percent', 'printer_report', 'slice_per_tray'],
          description:
            'Extension: how used was measured: wire (the lines a serial printer acknowledged), file_position (a network printer\'s position in our copy of the file), progress_percent (only a percentage was reported: approximate), printer_report (the printer\'s own counter, external prints), slice_per_tray (a sliced 3MF on a Bambu printer: the slice\'s metres per filament slot at the share of the print done, charged to the AMS tray, as tool, each slot printed from); null before the job ran',
        }),
      },
    },
    origin: {
      type: 'string',
      enum: ['queue', 'slicer', 'external'],
      description:
        'Extension: queue (created through the API or the dashboard), slicer (uploaded from a slicer through an emulated OctoPrint, PrusaLink or Moonraker host API: see slicer_api) or external (a print started on the printer itself, recorded when it ended: no stored file, file_id null)',
    },
    slicer_api: nullable({
      type: 'string',
      enum: ['octoprint', 'prusalink', 'moonraker'],
      description: 'Extension: the host API a slicer uploaded the job through; null unless origin is slicer',
    }),
    cost: nullable({ type: 'number', description: 'Extension: filament + machine time + energy, organization currency; set when the job ends' }),
    nozzle_diameter: nullable({ type: 'number', description: 'Extension: mm, from the slicer metadata' }),
    print_options: nullable({ ...PrintOptionsSchema, description: 'Extension: the print options the job was created with; null when none' } as JsonSchema),
    group: nullable({ type: 'string' }),
    tags: { type: 'array', items: { type: 'string' } },
    batch_id: nullable({ type: 'string' }),
    waiting_reason: nullable({ type: 'string', description: 'Extension: why a queued job is not printing yet' }),
    waiting_detail: nullable({
      type: 'string',
      description: 'Extension: words beside waiting_reason where the code alone does not say enough (printer_refused: which printer refused the start, and its message); null otherwise',
    }),
    pending_action: nullable({
      type: 'string',
      enum: ['pause', 'cancel'],
      description:
        'Extension: a pause or cancel the printer accepted and has not finished yet: it first runs the moves it already holds (a serial pause parks after them; OctoPrint shows Pausing or Cancelling meanwhile) or ends a heat-up or dwell its firmware cannot break (Klipper); the job changes the moment that is done. null otherwise',
    }),
    error: nullable({ type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } }),
    created_at: timestamp,
    started_at: nullable(timestamp),
    completed_at: nullable(timestamp),
    updated_at: timestamp,
  },
};

export const jobCreateResponseSchema: JsonSchema = {
  type: 'object',
  properties: {
    success: { type: 'boolean', enum: [true] },
    data: { allOf: [jobRecordSchema], description: 'The (first) created job; with copies it also carries job_ids' },
  },
};

export const JOBS_LIST_SPEC: ListSpec = {
  fields: Object.keys(jobRecordSchema.properties as object),
  sortable: {
    created_at: 'created_at',
    started_at: 'started_at',
    completed_at: 'completed_at',
    priority: 'priority_rank',
    status: 'status',
    name: 'name',
  },
  filters: {
    status: { column: 'status', type: 'enum', values: JOB_STATUSES },
    printer_id: { column: 'printer_id', type: 'string' },
    priority: { column: 'priority', type: 'enum', values: JOB_PRIORITIES },
    batch_id: { column: 'batch_id', type: 'string' },
    group: { column: 'group_name', type: 'string' },
    // The JSON test differs per engine: list() puts in the engine's (storage/engines), this stand-in is never run.
    tag: { type: 'string', description: 'Only jobs carrying this tag', where: () => sql<SqlBool>`1 = 0` },
  },
  dateRange: { column: 'created_at' },
};
