// Query and response schemas of /v1/analytics/* (TypeBox: one source for validation, types and OpenAPI).
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { StringEnum } from '../http/string-enum.js';
import { NAME_MAX, TextField } from '../http/text-field.js';
import { INTERVALS } from './time-buckets.js';

const dateParam = (description: string) =>
  Type.Optional(TextField({ maxLength: 40, minLength: 1, description: `${description} ISO 8601 date (2026-01-31) or date-time with zone.` }));

const periodProps = {
  from: dateParam('Start of the period (default: 30 days before `to`); a date alone is the start of that UTC day.'),
  to: dateParam('End of the period, exclusive (default: now); a date alone includes that whole UTC day.'),
  group: Type.Optional(TextField({ maxLength: NAME_MAX, minLength: 1, description: "Only printers of this group (the printer's group_name)." })),
};

const seriesProps = {
  interval: Type.Optional(StringEnum(INTERVALS, { description: 'Width of a time-series bucket (default: day).' })),
  tz: Type.Optional(TextField({ maxLength: 64, minLength: 1, description: "IANA time zone of the buckets (default: the organization's timezone)." })),
};

export const FleetQuery = Type.Object(periodProps, { additionalProperties: false });
export type FleetQuery = Static<typeof FleetQuery>;

export const PrinterStatsQuery = Type.Object({ from: periodProps.from, to: periodProps.to, ...seriesProps }, { additionalProperties: false });
export type PrinterStatsQuery = Static<typeof PrinterStatsQuery>;

export const JobStatsQuery = Type.Object(
  { ...periodProps, printer_id: Type.Optional(TextField({ maxLength: NAME_MAX, minLength: 1, description: 'Only jobs of this printer.' })), ...seriesProps },
  { additionalProperties: false },
);
export type JobStatsQuery = Static<typeof JobStatsQuery>;

export const MaterialStatsQuery = Type.Object(
  { ...periodProps, type: Type.Optional(TextField({ maxLength: 50, minLength: 1, description: 'Only this material type (e.g. PLA).' })), ...seriesProps },
  { additionalProperties: false },
);
export type MaterialStatsQuery = Static<typeof MaterialStatsQuery>;

export const EXPORT_DATASETS = ['jobs', 'materials', 'printers'] as const;
export const EXPORT_FORMATS = ['csv', 'json'] as const;

export const ExportQuery = Type.Object(
  {
    dataset: StringEnum(EXPORT_DATASETS, { description: 'What to export: one row per job, per material usage line, or per printer.' }),
    from: periodProps.from,
    to: periodProps.to,
    group: periodProps.group,
    format: Type.Optional(StringEnum(EXPORT_FORMATS, { description: 'csv (default, RFC 4180 with a header row) or json (an array).' })),
  },
  { additionalProperties: false },
);
export type ExportQuery = Static<typeof ExportQuery>;

const num = (description: string) => Type.Number({ description });

export const PeriodRecord = Type.Object({
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time', description: 'Exclusive end.' }),
});

export const FleetMetricsRecord = Type.Object({
  total_printers: num('Printers in scope (the group, or all).'),
  active_printers: num('Printers that printed at some moment of the period.'),
  utilization_rate: num('Printing seconds inside the period / (total_printers × period seconds), 0..1.'),
  jobs_completed: num('Jobs that completed inside the period.'),
  success_rate: num('completed / (completed + failed) among jobs that ended inside the period; cancellations excluded; 0 when none.'),
  total_print_time: num('Printing seconds inside the period (pauses excluded).'),
  material_consumed: num('Grams of filament used inside the period.'),
  estimated_cost: num('Filament + machine time at hourly_rate + energy at energy_cost_per_kwh, in the organization currency.'),
});

export const FleetRecord = Type.Object({
  period: PeriodRecord,
  metrics: FleetMetricsRecord,
  currency: Type.String({ description: 'Extension: the currency of estimated_cost (the organization currency).' }),
});

/** A loose object schema for OpenAPI of the extension reports (their fields are documented in the route descriptions, analytics.docs.ts). */
export const reportRecord = (description: string): TSchema => Type.Object({ period: PeriodRecord }, { description, additionalProperties: true });
