// Request and record schemas of /v1/organization, in TypeBox: each TypeScript type is Static<> of its schema.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../http/string-enum.js';
import { NAME_MAX, TextField } from '../http/text-field.js';

const Plan = StringEnum(['free', 'pro', 'enterprise']);

/** Browser sessions end this many hours after sign-in (default a week, at most a year). */
export const SESSION_LIFETIME_HOURS = { minimum: 1, maximum: 8760, default: 168 } as const;
/** ...and after this many minutes without a request (default 12 hours, at least 5 minutes, at most a year). */
export const SESSION_IDLE_MINUTES = { minimum: 5, maximum: 525_600, default: 720 } as const;
/** Files no active job needs are removed this many days after their last use (default 30, at most 100 years); null: never. */
export const FILE_RETENTION_DAYS = { minimum: 1, maximum: 36_500, default: 30 } as const;
/** The most the stored files may take, in GiB (fractions allowed); null: no cap. */
export const FILE_STORE_MAX_GB = { exclusiveMinimum: 0, maximum: 1_000_000 } as const;
export type Plan = Static<typeof Plan>;
/** Nightly backups kept (default a week). */
export const BACKUP_KEEP = { minimum: 1, maximum: 365, default: 7 } as const;

/** The organization as clients see it. */
export const OrganizationRecord = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: Plan,
  rate_limit_per_hour: Type.Integer({ description: 'requests per API key per hour in force: 100 free, 1000 pro, own value on enterprise' }),
  currency: Type.String({ description: 'ISO 4217 code' }),
  hourly_rate: Type.Number({ description: 'machine cost per print hour, in the currency' }),
  energy_cost_per_kwh: Type.Number({ description: 'in the currency' }),
  timezone: Type.String({ description: 'IANA time zone' }),
  auto_start: Type.Boolean({ description: 'start queued jobs on free printers without an operator' }),
  cool_on_pause: Type.Boolean({ description: 'extension: heaters off while a job is paused (resume reheats and waits); false keeps the targets' }),
  webhook_allowed_hosts: Type.Array(Type.String(), { description: 'hosts webhook receivers may use; empty allows any' }),
  file_url_hosts: Type.Array(Type.String(), {
    description: 'hosts a job file_url may be downloaded from (every redirect too); empty allows any not forbidden',
  }),
  power_budget_watts: Type.Union([Type.Number(), Type.Null()], {
    description: 'extension: the most the farm may draw for printer heat-ups at once (W); heat-ups are staggered to stay under it; null: no budget',
  }),
  storage_reserve_mb: Type.Union([Type.Integer(), Type.Null()], {
    description: 'extension: MB of disk kept free for the database; uploads and file_url downloads are refused below it; null: min(200 MB, 10 % of the file system)',
  }),
  session_lifetime_hours: Type.Integer({ description: 'a browser session ends this many hours after sign-in' }),
  session_idle_minutes: Type.Integer({ description: 'a browser session ends after this many minutes without a request' }),
  backup_time: Type.Union([Type.String(), Type.Null()], {
    description: 'HH:MM in the organization time zone when the nightly backup into DATA_DIR/backups/ runs; null: none',
  }),
  backup_keep: Type.Integer({ description: 'how many nightly backups are kept' }),
  backup_with_files: Type.Boolean({ description: 'extension: nightly backups carry the stored G-code files and thumbnails too' }),
  file_retention_days: Type.Union([Type.Integer(), Type.Null()], {
    description: 'extension: stored files no queued, printing or paused job needs are removed this many days after their last use; null keeps them',
  }),
  file_store_max_gb: Type.Union([Type.Number(), Type.Null()], {
    description: 'extension: the most the stored files may take (GiB); over it the least recently used files no active job needs go first; null: no cap',
  }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type OrganizationRecord = Static<typeof OrganizationRecord>;

/** The PATCH response: the record, plus `warnings` when the change does something the caller should know about. */
export const PatchedOrganization = Type.Object({
  ...OrganizationRecord.properties,
  warnings: Type.Optional(Type.Array(Type.String(), { description: 'what the change does to rate limits; absent when nothing' })),
});

/** A PATCHable host list: the patterns src/net/host-allowlist.ts understands (checked further by the service). */
const HostList = (description: string) =>
  Type.Optional(Type.Array(TextField({ minLength: 1, maxLength: 253 }), { maxItems: 100, uniqueItems: true, description }));

const settings = {
  name: Type.Optional(TextField({ minLength: 1, maxLength: NAME_MAX })),
  plan: Type.Optional(Plan),
  rate_limit_per_hour: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'enterprise plan only' })),
  currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, upper case' })),
  hourly_rate: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
  energy_cost_per_kwh: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000 })),
  timezone: Type.Optional(TextField({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Europe/Berlin' })),
  auto_start: Type.Optional(Type.Boolean()),
  cool_on_pause: Type.Optional(Type.Boolean()),
  webhook_allowed_hosts: HostList(
    'host names, *.domain wildcards, IP addresses or CIDR ranges (10.0.0.0/8, fd00::/8) webhook receivers may use; [] allows any',
  ),
  file_url_hosts: HostList(
    'host names, *.domain wildcards, IP addresses or CIDR ranges a job file_url (and each redirect) may reach; an address ' +
      'or range also allows a host name that resolves into it; [] allows any host not refused by address class',
  ),
  power_budget_watts: Type.Optional(
    Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 }), Type.Null()], {
      description: 'the most the farm may draw for heat-ups at once (W); null removes the budget',
    }),
  ),
  storage_reserve_mb: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000 }), Type.Null()], {
      description: 'MB of disk kept free for the database (uploads stop below it); null: the default, min(200 MB, 10 % of the file system)',
    }),
  ),
  session_lifetime_hours: Type.Optional(
    Type.Integer({
      minimum: SESSION_LIFETIME_HOURS.minimum,
      maximum: SESSION_LIFETIME_HOURS.maximum,
      description: `hours a browser session lasts from sign-in (default ${SESSION_LIFETIME_HOURS.default}); applies to existing sessions at once`,
    }),
  ),
  session_idle_minutes: Type.Optional(
    Type.Integer({
      minimum: SESSION_IDLE_MINUTES.minimum,
      maximum: SESSION_IDLE_MINUTES.maximum,
      description: `minutes without a request after which a browser session ends (default ${SESSION_IDLE_MINUTES.default}); applies to existing sessions at once`,
    }),
  ),
  backup_time: Type.Optional(
    Type.Union([Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: '24-hour HH:MM, e.g. 03:30' }), Type.Null()], {
      description: 'when the nightly backup runs, in the organization time zone (default 03:30); null turns nightly backups off',
    }),
  ),
  backup_keep: Type.Optional(
    Type.Integer({
      minimum: BACKUP_KEEP.minimum,
      maximum: BACKUP_KEEP.maximum,
      description: `nightly backups kept in DATA_DIR/backups/ (default ${BACKUP_KEEP.default}); older ones are removed after the next`,
    }),
  ),
  backup_with_files: Type.Optional(Type.Boolean({ description: 'nightly backups carry the stored G-code files and thumbnails too (default false: database and secret key)' })),
  file_retention_days: Type.Optional(
    Type.Union([Type.Integer({ minimum: FILE_RETENTION_DAYS.minimum, maximum: FILE_RETENTION_DAYS.maximum }), Type.Null()], {
      description: `days after their last use that stored files no active job needs are removed (default ${FILE_RETENTION_DAYS.default}); null keeps them forever`,
    }),
  ),
  file_store_max_gb: Type.Optional(
    Type.Union([Type.Number(FILE_STORE_MAX_GB), Type.Null()], {
      description: 'the most the stored files may take (GiB); over it the least recently used files no active job needs are removed first; null: no cap',
    }),
  ),
};

/** The settings a PATCH can change. */
export const OrganizationPatch = Type.Object(settings, { additionalProperties: false });
export type OrganizationPatch = Static<typeof OrganizationPatch>;

// Listed so the 400 can say "read-only" instead of "unknown"; any value is refused by the handler.
const readOnlyOf = () => Type.Optional(Type.Unknown({ readOnly: true }));
const readOnly = { id: readOnlyOf(), created_at: readOnlyOf(), updated_at: readOnlyOf() };

/** Fields a PATCH may name only to be told they are read-only. */
export const READ_ONLY_FIELDS = Object.keys(readOnly) as (keyof typeof readOnly)[];

/** The PATCH body as validated: the settings, plus the read-only fields. */
export const OrganizationPatchBody = Type.Object({ ...settings, ...readOnly }, { additionalProperties: false, minProperties: 1 });
export type OrganizationPatchBody = Static<typeof OrganizationPatchBody>;
