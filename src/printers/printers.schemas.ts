// Request bodies of the printers API (TypeBox: schema and type from one definition) and the documented length caps.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { badRequest } from '../errors.js';
import { TextField } from '../http/text-field.js';
import { CONNECTION_URL_MAX } from './connection-url.js';
import { MDNS_BROWSE_MS } from './network-discovery.js';

export const PRINTER_LIMITS = {
  name: 100,
  connection_url: CONNECTION_URL_MAX,
  api_key: 500,
  model: 100,
  group: 100,
  tag: 50,
  tags: 20,
  material_type: 50,
  material_color: 50,
  clear_bed_gcode: 10_000,
  command: 256,
  commands: 20,
} as const;

const text = (max: number, description: string) => Type.String({ minLength: 1, maxLength: max, description });
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const number = (minimum: number, maximum: number, description: string) => nullable(Type.Number({ minimum, maximum, description }));

/** Fields a client may write; null clears an optional one. */
const writable = {
  name: text(PRINTER_LIMITS.name, 'Display name.'),
  connection_url: text(
    PRINTER_LIMITS.connection_url,
    'How the server reaches the printer: serial:///dev/ttyACM0?baud=250000, a bare /dev path, tcp://host:port (raw G-code bridge) or sim://name (built-in simulator). serial and tcp URLs may add profile=NAME to force a firmware profile.',
  ),
  api_key: nullable(text(PRINTER_LIMITS.api_key, "Credential for the printer's own interface; stored encrypted, never returned (see has_api_key).")),
  model: nullable(text(PRINTER_LIMITS.model, 'Printer model, e.g. "Prusa MK4".')),
  group: nullable(text(PRINTER_LIMITS.group, 'Group name; null removes the printer from its group.')),
  tags: Type.Array(text(PRINTER_LIMITS.tag, 'A tag.'), {
    maxItems: PRINTER_LIMITS.tags,
    uniqueItems: true,
    description: `Free labels, at most ${PRINTER_LIMITS.tags} of up to ${PRINTER_LIMITS.tag} characters.`,
  }),
  material_type: nullable(text(PRINTER_LIMITS.material_type, 'Material loaded, e.g. "PLA" (used by the scheduler to match jobs).')),
  material_color: nullable(text(PRINTER_LIMITS.material_color, 'Colour of the loaded material, e.g. "black".')),
  nozzle_diameter: number(0.1, 2, 'Nozzle diameter in mm.'),
  heatup_watts: number(0, 5000, 'Power drawn while heating up, in watts (energy cost estimates).'),
  power_watts: number(0, 5000, 'Average power drawn while printing, in watts.'),
  clear_bed_gcode: nullable(
    TextField({
      multiline: true,
      minLength: 1,
      maxLength: PRINTER_LIMITS.clear_bed_gcode,
      description: 'G-code run to clear the bed automatically after a print (one command per line; comments allowed).',
    }),
  ),
  clear_bed_temperature: number(0, 150, 'Bed temperature in °C at or below which the bed may be cleared.'),
};

export const PrinterCreateBody = Type.Object(
  {
    name: writable.name,
    connection_url: writable.connection_url,
    api_key: Type.Optional(writable.api_key),
    model: Type.Optional(writable.model),
    group: Type.Optional(writable.group),
    tags: Type.Optional(writable.tags),
    material_type: Type.Optional(writable.material_type),
    material_color: Type.Optional(writable.material_color),
    nozzle_diameter: Type.Optional(writable.nozzle_diameter),
    heatup_watts: Type.Optional(writable.heatup_watts),
    power_watts: Type.Optional(writable.power_watts),
    clear_bed_gcode: Type.Optional(writable.clear_bed_gcode),
    clear_bed_temperature: Type.Optional(writable.clear_bed_temperature),
    node_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'The node (appliance) whose connection drives the printer (GET /v1/nodes); default: the node answering.' }),
    ),
  },
  { additionalProperties: false },
);
export type PrinterCreateInput = Static<typeof PrinterCreateBody>;

export const PrinterUpdateBody = Type.Partial(Type.Omit(PrinterCreateBody, ['node_id']), { additionalProperties: false, minProperties: 1 });
export type PrinterUpdateInput = Static<typeof PrinterUpdateBody>;

export const PRINTER_ACTIONS = ['pause', 'resume', 'cancel', 'home', 'cooldown', 'ready', 'emergency_stop', 'connect', 'disconnect'] as const;
export type PrinterAction = (typeof PRINTER_ACTIONS)[number];

export const PrinterActionBody = Type.Object(
  {
    // An enum (not a union of literals) so a wrong value gets "must be one of ..." listing the actions.
    action: Type.Unsafe<PrinterAction>({
      type: 'string',
      enum: [...PRINTER_ACTIONS],
      description:
        'pause, resume or cancel the current job; home all axes; cooldown turns heaters and fans off; extensions: ready (the bed was cleared), emergency_stop (M112), connect, disconnect.',
    }),
  },
  { additionalProperties: false },
);
export type PrinterActionInput = Static<typeof PrinterActionBody>;

export const PrinterCommandsBody = Type.Object(
  {
    commands: Type.Array(text(PRINTER_LIMITS.command, 'One G-code command, e.g. "M105".'), {
      minItems: 1,
      maxItems: PRINTER_LIMITS.commands,
      description: `Up to ${PRINTER_LIMITS.commands} commands, sent in order; each answer is awaited before the response.`,
    }),
  },
  { additionalProperties: false },
);
export type PrinterCommandsInput = Static<typeof PrinterCommandsBody>;

/** GET /v1/printers/:id/temperatures: `minutes` is text on the wire, checked to 1..60 by parseMinutes. */
export const TemperaturesQuery = Type.Object(
  {
    minutes: Type.Optional(
      TextField({ minLength: 1, maxLength: 10, description: 'How far back, in minutes: an integer from 1 to 60 (default 60).' }),
    ),
  },
  { additionalProperties: false },
);
export type TemperaturesQueryInput = Static<typeof TemperaturesQuery>;

export const TEMPERATURE_MINUTES_MAX = 60;

/** The `minutes` parameter as a number; a clear 400 naming it otherwise. */
export function parseMinutes(text: string | undefined): number {
  if (text === undefined) return TEMPERATURE_MINUTES_MAX;
  const n = /^\d{1,2}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= TEMPERATURE_MINUTES_MAX)) {
    throw badRequest(`query parameter minutes: must be an integer from 1 to ${TEMPERATURE_MINUTES_MAX}`);
  }
  return n;
}

const reading = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

export const TemperatureHistoryRecord = Type.Object({
  printer_id: Type.String(),
  interval_seconds: Type.Integer({ description: 'Seconds between two samples (5).' }),
  samples: Type.Array(
    Type.Object({
      at: Type.String({ format: 'date-time' }),
      hotend: reading('°C; null when not reported'),
      hotend_target: reading('°C'),
      bed: reading('°C'),
      bed_target: reading('°C'),
    }),
    { description: 'Oldest first; only while the printer was connected (gaps while offline).' },
  ),
});

/** GET /v1/printers/discover: `mdns_browse_ms` is text on the wire, checked by parseBrowseMs. */
export const DiscoverQuery = Type.Object(
  {
    mdns_browse_ms: Type.Optional(
      TextField({
        minLength: 1,
        maxLength: 10,
        description: `How long to listen for network printers, in ms: an integer from ${MDNS_BROWSE_MS.min} to ${MDNS_BROWSE_MS.max} (default ${MDNS_BROWSE_MS.default}).`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type DiscoverQueryInput = Static<typeof DiscoverQuery>;

/** The `mdns_browse_ms` parameter as a number; a clear 400 naming it otherwise. */
export function parseBrowseMs(text: string | undefined): number {
  if (text === undefined) return MDNS_BROWSE_MS.default;
  const n = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(n >= MDNS_BROWSE_MS.min && n <= MDNS_BROWSE_MS.max)) {
    throw badRequest(`query parameter mdns_browse_ms: must be an integer from ${MDNS_BROWSE_MS.min} to ${MDNS_BROWSE_MS.max}`);
  }
  return n;
}
