// Shapes of the slicer host APIs: the one JSON command body they take (Cura's select), the key-making body, and the
// answers documented in OpenAPI. The slicers' own field names are kept as they send them.
import { Type, type Static } from '@sinclair/typebox';
import type { JsonSchema } from '../http/validation.js';

/** The tag every emulated host route carries in the OpenAPI document. */
export const SLICER_TAG = 'Slicer uploads';

/** The scope that lets a key upload from a slicer (and nothing else). */
export const SLICER_SCOPE = { scope: 'slicer:upload' } as const;

/** Cura's command on an uploaded file's Location: select it, and print it when `print` is true. */
export const FileCommandBody = Type.Object(
  {
    command: Type.String({ maxLength: 40, description: 'select (the only command a farm takes: print=true queues the file)' }),
    print: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);
export type FileCommandBody = Static<typeof FileCommandBody>;

export const SlicerKeyBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The key name shown in the key list; default "Slicer"' })) },
  { additionalProperties: false },
);
export type SlicerKeyBody = Static<typeof SlicerKeyBody>;

/** Multipart fields of the OctoPrint-style upload, for OpenAPI (the route streams the form itself). */
export const octoprintUploadDoc: JsonSchema = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'The G-code (.gcode, .bgcode or a sliced .gcode.3mf)' },
    path: { type: 'string', description: 'Folder: group/<name>, printer/<name or id>, x<copies>, low|normal|high|urgent, in any order' },
    print: { type: 'string', enum: ['true', 'false'], description: 'true queues a job; otherwise the file is only stored' },
    select: { type: 'string', enum: ['true', 'false'], description: 'Accepted and ignored (a farm has no selected file)' },
  },
};

export const moonrakerUploadDoc: JsonSchema = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'The G-code (.gcode, .bgcode or a sliced .gcode.3mf)' },
    root: { type: 'string', description: 'gcodes, or a root of GET /server/files/roots (group/<name>, printer/<name>)' },
    path: { type: 'string', description: 'Folder, read like the OctoPrint path' },
    print: { type: 'string', enum: ['true', 'false'], description: 'true queues a job; otherwise the file is only stored' },
    plateindex: { type: 'string', description: "OrcaSlicer, with a .gcode.3mf: the 1-based plate to print; it must be the file's first sliced plate" },
  },
};

const setupField: JsonSchema = {
  type: 'object',
  properties: { label: { type: 'string' }, value: { type: 'string' } },
  required: ['label', 'value'],
};

export const slicerKeyResponseSchema: JsonSchema = {
  type: 'object',
  properties: {
    success: { type: 'boolean', enum: [true] },
    data: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        prefix: { type: 'string', description: 'Also the HTTP Digest user name (PrusaLink host type, "user/password")' },
        scopes: { type: 'array', items: { type: 'string' } },
        key: { type: 'string', description: 'Shown once' },
        setup: {
          type: 'array',
          description: 'What to type into each slicer, in order',
          items: {
            type: 'object',
            properties: {
              slicer: { type: 'string' },
              host_type: { type: 'string' },
              fields: { type: 'array', items: setupField },
              note: { type: 'string' },
            },
            required: ['slicer', 'host_type', 'fields', 'note'],
          },
        },
      },
    },
  },
};
