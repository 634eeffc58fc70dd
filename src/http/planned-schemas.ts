// Request schemas, record schemas and list specs of the endpoints not built yet (materials), per spec + api-decisions.
import type { ListSpec } from './list-query.js';
import type { JsonSchema } from './validation.js';

// ---- shared pieces -------------------------------------------------------------------------------------------------

const str = (min: number, max: number, description?: string): JsonSchema => ({
  type: 'string',
  minLength: min,
  maxLength: max,
  ...(description ? { description } : {}),
});
const timestamp: JsonSchema = { type: 'string', format: 'date-time' };
const nullableTimestamp: JsonSchema = { type: ['string', 'null'], format: 'date-time' };
const tags: JsonSchema = {
  type: 'array',
  maxItems: 20,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 50 },
  description: 'Free labels, at most 20 of up to 50 characters.',
};
const printerRef: JsonSchema = { type: 'string', pattern: '^prt_[A-Za-z0-9]+$', maxLength: 64, description: 'A printer id (prt_...).' };
const grams = (description: string): JsonSchema => ({ type: 'number', minimum: 0, maximum: 100000, description });

// ---- materials -----------------------------------------------------------------------------------------------------

export const MATERIAL_STATUSES = ['active', 'empty', 'archived'] as const;

const materialWritable = {
  type: str(1, 50, 'Material kind, e.g. "PLA", "PETG".'),
  brand: str(0, 100),
  color: str(0, 50),
  spool_weight: { type: 'number', exclusiveMinimum: 0, maximum: 100000, description: 'Grams of filament on a full spool.' },
  remaining_weight: grams('Grams left; defaults to spool_weight.'),
  cost_per_kg: { type: 'number', minimum: 0, maximum: 1000000, description: 'Organization currency per kilogram.' },
  printer_id: { ...printerRef, description: 'The printer the spool is loaded on.' },
  reorder_threshold: grams('material.low fires when remaining_weight falls to this.'),
};

export const materialCreateBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'spool_weight'],
  properties: materialWritable,
};

export const materialUpdateBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { ...materialWritable, status: { type: 'string', enum: ['active', 'archived'] } },
};

export const materialRecord: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'mat_...' },
    type: { type: 'string' },
    brand: { type: ['string', 'null'] },
    color: { type: ['string', 'null'] },
    spool_weight: { type: 'number' },
    remaining_weight: { type: 'number' },
    cost_per_kg: { type: ['number', 'null'] },
    printer_id: { type: ['string', 'null'] },
    reorder_threshold: { type: ['number', 'null'] },
    status: { type: 'string', enum: [...MATERIAL_STATUSES] },
    created_at: timestamp,
    updated_at: timestamp,
  },
};

export const materialsListSpec: ListSpec = {
  fields: Object.keys(materialRecord.properties as object),
  sortable: ['created_at', 'updated_at', 'type', 'brand', 'color', 'remaining_weight', 'cost_per_kg'],
  filters: {
    type: { column: 'type', type: 'string' },
    brand: { column: 'brand', type: 'string' },
    color: { column: 'color', type: 'string' },
    status: { column: 'status', type: 'enum', values: MATERIAL_STATUSES },
    printer_id: { column: 'printer_id', type: 'string' },
  },
};
