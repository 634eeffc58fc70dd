// The printer as the API shows it: the stored row merged with its session's live snapshot (status, firmware, temperatures, job).
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { PrinterTable } from '../storage/schema.js';
import { BambuViewSchema } from './bambu/bambu-view.js';
import { printerKindOf } from './network-url.js';
import type { OfflineReason, PrinterSnapshot, PrinterStatus } from './printer-state.js';
import { SerialStatsSchema, type SerialStats } from './serial-stats.js';
import type { HeldJob } from './session-registry.js';
import { startRefusalOf } from './start-refusals.js';

/** A printers row; reads also carry `loaded_spools` (JSON array of the spools on its tools, from the materials table). */
export type PrinterRow = Selectable<PrinterTable> & { loaded_spools?: string | null };

/** API statuses: the spec's idle, printing, offline plus the extensions paused and error. */
export const PRINTER_STATUSES = ['idle', 'printing', 'offline', 'paused', 'error'] as const;
export type ApiPrinterStatus = (typeof PRINTER_STATUSES)[number];

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const nullableNumber = (description: string) => nullable(Type.Number({ description }));
const nullableString = (description: string) => nullable(Type.String({ description }));

export const OFFLINE_REASONS = ['unreachable', 'auth_failed', 'firmware_error', 'printer_disconnected', 'tls_error', 'host_error', 'node_unavailable'] as const;
export const PRINTER_KINDS = ['serial', 'moonraker', 'octoprint', 'prusalink', 'bambu'] as const;

export const PrinterRecordSchema = Type.Object({
  id: Type.String({ description: 'prt_...' }),
  name: Type.String(),
  kind: Type.Unsafe<(typeof PRINTER_KINDS)[number]>({
    type: 'string',
    enum: [...PRINTER_KINDS],
    description:
      'Extension, from connection_url: serial (serial://, tcp://, sim://: we stream the G-code line by line), or a printer on the network that prints its own copy of the file (moonraker, octoprint, prusalink).',
  }),
  status: Type.Unsafe<ApiPrinterStatus>({
    type: 'string',
    enum: [...PRINTER_STATUSES],
    description: 'idle, printing, offline; extensions paused and error (the firmware reported a fault; connect clears it).',
  }),
  connecting: Type.Boolean({ description: 'Extension: true while the server is opening the link or identifying the printer (status is offline then).' }),
  ready: Type.Boolean({ description: 'Extension: false while the bed waits to be cleared after a print; action ready sets it.' }),
  model: nullableString('Printer model.'),
  firmware: nullableString('Firmware as the printer reported it (M115 FIRMWARE_NAME); the last known one while offline.'),
  temperatures: Type.Object(
    {
      hotend: nullableNumber('°C'),
      bed: nullableNumber('°C'),
      hotend_target: nullableNumber('°C'),
      bed_target: nullableNumber('°C'),
    },
    { description: 'Degrees Celsius; all null while offline.' },
  ),
  current_job: nullableString('Id of the job being printed.'),
  progress: nullableNumber('Percent 0..100 of the current job (by bytes acknowledged by the printer).'),
  group: nullableString('Group name.'),
  tags: Type.Array(Type.String()),
  connection_url: Type.String(),
  has_api_key: Type.Boolean({ description: 'Whether an api_key is stored (the key itself is never returned).' }),
  error: nullable(
    Type.Object(
      { code: Type.String(), message: Type.String() },
      { description: 'Why the printer is in error, or why the last connection attempt failed or the link was lost.' },
    ),
  ),
  offline_reason: nullable(
    Type.Unsafe<OfflineReason>({
      type: 'string',
      enum: [...OFFLINE_REASONS],
      description:
        'Extension: why an offline (or error) printer is not usable: unreachable (nothing answers), auth_failed (the api_key was refused), firmware_error (the firmware stopped; its message is in error), printer_disconnected (OctoPrint or Moonraker is up but its printer is not), tls_error, host_error (the worker thread hosting its link crashed; it restarts and the printer reconnects), node_unavailable (the printer belongs to another node sharing the database, and that node is lost, stopped or silent: its state is unknown here). Null while online or connecting.',
    }),
  ),
  external_job: nullable(
    Type.Object(
      {
        file_name: Type.String(),
        progress: Type.Number({ description: 'Percent 0..100 as the printer reports it.' }),
        started_at: Type.String({ format: 'date-time' }),
      },
      {
        description:
          'Extension: a print started on the printer itself (its screen, Mainsail, OctoPrint), while it runs; current_job is null then and the scheduler sends the printer nothing until it ends. When it ends it is recorded as a job with origin external.',
      },
    ),
  ),
  start_refusal: nullable(
    Type.Object(
      {
        message: Type.String({ description: "The printer's words for the last refused start." }),
        since: Type.String({ format: 'date-time', description: 'When the printer was held.' }),
        attempts: Type.Integer({ description: 'Job starts refused in a row.' }),
      },
      {
        description:
          'Extension: the printer refused several job starts in a row (its upload or start failed) and takes no job until it reconnects, its settings change, or action connect retries; null otherwise.',
      },
    ),
  ),
  bambu: nullable(BambuViewSchema),
  material_type: nullableString('Loaded material type (stop-gap: the scheduler uses it only while no spool is loaded).'),
  material_color: nullableString('Loaded material colour (stop-gap, as material_type).'),
  materials: Type.Array(
    Type.Object({
      id: Type.String({ description: 'mat_...' }),
      tool: Type.Integer(),
      type: Type.String(),
      color: nullable(Type.String()),
      remaining_weight: Type.Number({ description: 'grams' }),
    }),
    { description: 'Extension: the spools loaded on its tools, by tool (PATCH /v1/materials/:id with printer_id and tool loads one).' },
  ),
  nozzle_diameter: nullableNumber('mm'),
  heatup_watts: nullableNumber('W'),
  power_watts: nullableNumber('W'),
  clear_bed_gcode: nullableString('G-code that clears the bed after a print.'),
  clear_bed_temperature: nullableNumber('°C'),
  serial: nullable(SerialStatsSchema),
  node_id: nullableString('Extension: the node (appliance) that drives the printer (GET /v1/nodes); null until a node takes it.'),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time', description: 'Last change through the API (create, PATCH).' }),
});
export type PrinterRecord = Static<typeof PrinterRecordSchema>;

/** The `fields` whitelist of lists: every record field. */
export const PRINTER_FIELDS: readonly string[] = Object.keys(PrinterRecordSchema.properties);

/** The session's transient `connecting` is `offline` to API clients (with `connecting: true`); no session is offline. */
export function apiStatus(status: PrinterStatus | undefined): ApiPrinterStatus {
  return status === undefined || status === 'connecting' ? 'offline' : status;
}

const orNull = (n: number | undefined): number | null => (typeof n === 'number' && Number.isFinite(n) ? n : null);

/**
 * `ready` is stored (a restart must remember an uncleared bed) and also tracked by the session (it turns false when a
 * job that printed something ends): the printer is ready only when both say so.
 */
export function toPrinterRecord(row: PrinterRow, snap: PrinterSnapshot | null, serial: SerialStats | null = null, held: HeldJob | null = null): PrinterRecord {
  // A job whose end is not stored yet (the disk is full) still occupies its printer in our records.
  const heldJob = held && snap?.status === 'idle' ? held : null;
  const status = heldJob ? 'printing' : apiStatus(snap?.status);
  const online = status !== 'offline';
  const t = snap?.temperatures ?? {};
  return {
    id: row.id,
    name: row.name,
    kind: printerKindOf(row.connection_url),
    status,
    connecting: snap?.status === 'connecting',
    ready: row.ready === 1 && (snap?.ready ?? true),
    model: row.model,
    firmware: snap?.firmware?.name ?? row.firmware,
    temperatures: {
      hotend: online ? orNull(t.hotend) : null,
      bed: online ? orNull(t.bed) : null,
      hotend_target: online ? orNull(t.hotend_target) : null,
      bed_target: online ? orNull(t.bed_target) : null,
    },
    current_job: heldJob?.id ?? snap?.job?.id ?? null,
    progress: heldJob ? heldJob.progress : snap?.job ? snap.job.progress : null,
    group: row.group_name,
    tags: JSON.parse(row.tags) as string[],
    connection_url: row.connection_url,
    has_api_key: row.api_key_sealed !== null,
    error: snap?.error ? { code: snap.error.code, message: snap.error.message } : null,
    offline_reason: offlineReasonOf(snap),
    external_job: externalJobOf(snap),
    start_refusal: startRefusalOf(row),
    bambu: snap?.bambu ?? null,
    material_type: row.material_type,
    material_color: row.material_color,
    materials: row.loaded_spools ? (JSON.parse(row.loaded_spools) as PrinterRecord['materials']) : [],
    nozzle_diameter: row.nozzle_diameter,
    heatup_watts: row.heatup_watts,
    power_watts: row.power_watts,
    clear_bed_gcode: row.clear_bed_gcode,
    clear_bed_temperature: row.clear_bed_temperature,
    serial,
    node_id: row.node_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The session's external print as the API shows it (record and printer.telemetry): started_at as ISO time. */
export function externalJobOf(snap: PrinterSnapshot | null): PrinterRecord['external_job'] {
  const ext = snap?.external_job;
  return ext ? { file_name: ext.file_name, progress: ext.progress, started_at: new Date(ext.started_at).toISOString() } : null;
}

/**
 * A network driver says why it is offline; a serial link that is offline with an error could not be opened or was lost
 * (unreachable), and one in error was halted by its firmware. While connecting there is no reason yet.
 */
export function offlineReasonOf(snap: PrinterSnapshot | null): OfflineReason | null {
  if (!snap) return 'unreachable';
  if (snap.offline_reason !== undefined) return snap.status === 'offline' || snap.status === 'error' ? snap.offline_reason : null;
  if (snap.status === 'error') return 'firmware_error';
  if (snap.status === 'offline') return snap.error ? 'unreachable' : null;
  return null;
}
