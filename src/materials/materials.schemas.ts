// Request bodies (TypeBox: schema and type from one definition), the record schema and the list spec of /v1/materials.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { sql, type SqlBool } from 'kysely';
import type { ListSpec } from '../http/list-query.js';
import { StringEnum } from '../http/string-enum.js';
import { LONG_TEXT_MAX, NAME_MAX, TextField } from '../http/text-field.js';

export const MATERIAL_STATUSES = ['active', 'empty', 'archived'] as const;
/** The largest spool or weight the API takes, in grams (a 10 kg spool is large; this leaves room). */
const MAX_GRAMS = 100_000;
/** Tool numbers the extrusion tracker knows (src/protocol/extrusion-state.ts MAX_TOOLS). */
const MAX_TOOL = 15;

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const grams = (description: string) => Type.Number({ minimum: 0, maximum: MAX_GRAMS, description });

const fields = {
  type: TextField({ minLength: 1, maxLength: 50, description: 'Material kind, e.g. "PLA", "PETG" (matched case-insensitively).' }),
  brand: nullable(TextField({ maxLength: NAME_MAX, description: 'Manufacturer.' })),
  color: nullable(TextField({ maxLength: 50, description: 'Colour, e.g. "black" (matched case-insensitively).' })),
  spool_weight: Type.Number({ exclusiveMinimum: 0, maximum: MAX_GRAMS, description: 'Grams of filament on a full spool.' }),
  remaining_weight: grams('Grams of filament left; defaults to spool_weight on create.'),
  empty_spool_weight: nullable(grams('Grams of the empty spool itself, for weigh-ins with measured_gross_weight.')),
  cost_per_kg: nullable(Type.Number({ minimum: 0, maximum: 1_000_000, description: 'Price per kilogram in the organization currency.' })),
  diameter: Type.Number({ minimum: 1, maximum: 3.5, description: 'Filament diameter in mm (default 1.75).' }),
  density: Type.Number({ minimum: 0.5, maximum: 3, description: 'g/cm³; defaults by type: PLA 1.24, PETG 1.27, ABS 1.04, ASA 1.07, TPU 1.21, PA 1.14, PC 1.20.' }),
  printer_id: nullable(TextField({ minLength: 1, maxLength: 64, pattern: '^prt_[A-Za-z0-9]+$', description: 'Load the spool on this printer (null unloads it).' })),
  tool: Type.Integer({ minimum: 0, maximum: MAX_TOOL, description: 'Extruder index on a multi-tool printer (default 0).' }),
  reorder_threshold: nullable(grams('material.low fires once when remaining_weight falls to this or below.')),
  lot: nullable(TextField({ maxLength: NAME_MAX, description: 'Production lot / batch number.' })),
  notes: nullable(TextField({ maxLength: LONG_TEXT_MAX, multiline: true, description: 'Free notes.' })),
};

export const MaterialCreateBody = Type.Object(
  {
    type: fields.type,
    spool_weight: fields.spool_weight,
    brand: Type.Optional(fields.brand),
    color: Type.Optional(fields.color),
    remaining_weight: Type.Optional(fields.remaining_weight),
    empty_spool_weight: Type.Optional(fields.empty_spool_weight),
    cost_per_kg: Type.Optional(fields.cost_per_kg),
    diameter: Type.Optional(fields.diameter),
    density: Type.Optional(fields.density),
    printer_id: Type.Optional(fields.printer_id),
    tool: Type.Optional(fields.tool),
    reorder_threshold: Type.Optional(fields.reorder_threshold),
    lot: Type.Optional(fields.lot),
    notes: Type.Optional(fields.notes),
  },
  { additionalProperties: false },
);
export type MaterialCreate = Static<typeof MaterialCreateBody>;

export const MaterialUpdateBody = Type.Object(
  {
    ...Type.Partial(MaterialCreateBody).properties,
    measured_gross_weight: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: MAX_GRAMS * 2,
        description: 'Weigh-in: what the scale shows for spool + filament (g); remaining_weight becomes this minus empty_spool_weight.',
      }),
    ),
    status: Type.Optional(StringEnum(['active', 'archived'] as const, { description: 'archived takes the spool out of use (and unloads it); active brings it back.' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type MaterialUpdate = Static<typeof MaterialUpdateBody>;

const time = { type: 'string', format: 'date-time' };

export const materialRecordSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'mat_…' },
    type: { type: 'string' },
    brand: { type: ['string', 'null'] },
    color: { type: ['string', 'null'] },
    spool_weight: { type: 'number' },
    remaining_weight: { type: 'number', description: 'grams; goes down live while a job prints from the spool' },
    empty_spool_weight: { type: ['number', 'null'] },
    cost_per_kg: { type: ['number', 'null'] },
    diameter: { type: 'number' },
    density: { type: 'number' },
    printer_id: { type: ['string', 'null'] },
    tool: { type: 'integer' },
    reorder_threshold: { type: ['number', 'null'] },
    status: { type: 'string', enum: [...MATERIAL_STATUSES] },
    lot: { type: ['string', 'null'] },
    notes: { type: ['string', 'null'] },
    created_at: time,
    updated_at: time,
  },
};

export const MATERIAL_LIST: ListSpec = {
  fields: Object.keys(materialRecordSchema.properties),
  sortable: ['created_at', 'updated_at', 'type', 'brand', 'color', 'remaining_weight', 'cost_per_kg'],
  filters: {
    type: { type: 'string', description: 'Only this type (case-insensitive).', where: (v) => sql<SqlBool>`lower(type) = lower(${v})` },
    color: { type: 'string', description: 'Only this colour (case-insensitive).', where: (v) => sql<SqlBool>`lower(color) = lower(${v})` },
    brand: { type: 'string', description: 'Only this brand (case-insensitive).', where: (v) => sql<SqlBool>`lower(brand) = lower(${v})` },
    status: { column: 'status', type: 'enum', values: MATERIAL_STATUSES },
    printer_id: { column: 'printer_id', type: 'string', description: 'Spools loaded on this printer.' },
    low_stock: {
      type: 'boolean',
      description: 'true: remaining_weight at or below reorder_threshold; false: the others.',
      where: (v) =>
        v === 1
          ? sql<SqlBool>`(reorder_threshold is not null and remaining_weight <= reorder_threshold)`
          : sql<SqlBool>`(reorder_threshold is null or remaining_weight > reorder_threshold)`,
    },
  },
};

const JOB_STATUSES_SHOWN = ['queued', 'printing', 'paused', 'completed', 'failed', 'cancelled'];

/** One line of a spool's usage history: what one job drew from it on one tool. */
export const spoolUsageRecordSchema = {
  type: 'object',
  properties: {
    job_id: { type: 'string', description: 'job_…' },
    job_name: { type: 'string' },
    job_status: { type: 'string', enum: JOB_STATUSES_SHOWN, description: 'printing or paused: grams still grow' },
    printer_id: { type: ['string', 'null'], description: 'The printer the job ran on' },
    tool: { type: 'integer', description: 'The tool the spool fed' },
    grams: { type: 'number', description: 'Filament the job drew from this spool on this tool, measured on the wire (0.001 g)' },
    cost: { type: ['number', 'null'], description: 'What that filament cost at the spool\'s cost_per_kg; null without a price' },
    at: { ...time, description: 'When the job ended; while it still prints, when it started' },
  },
};

export const SPOOL_USAGE_LIST: ListSpec = {
  fields: Object.keys(spoolUsageRecordSchema.properties),
  sortable: { at: 'at', grams: 'grams' },
  defaultSort: '-at',
  // A usage line is one job and one tool: this key makes every order total.
  idColumn: 'usage_key',
};
