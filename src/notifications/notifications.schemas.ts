// Request schemas (TypeBox: one source for schema and type) and record schemas of /v1/notifications.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { WEBHOOK_EVENT_PATTERNS } from '../events/event-names.js';
import { TextField } from '../http/text-field.js';

const Text = (max: number, extra: object = {}) => Type.String({ minLength: 1, maxLength: max, ...extra });
const HttpUrl = (description: string) => Type.String({ format: 'uri', pattern: '^[hH][tT][tT][pP][sS]?://', maxLength: 2048, description });
const Email = Type.String({ format: 'email', maxLength: 254 });

const Events = Type.Array(Type.Union(WEBHOOK_EVENT_PATTERNS.map((p) => Type.Literal(p))), {
  minItems: 1,
  maxItems: 50,
  uniqueItems: true,
  description: `The rule: which events this channel gets (names, group wildcards or *): ${WEBHOOK_EVENT_PATTERNS.join(', ')}.`,
});
const Hhmm = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM in the organization time zone' });
const QuietHours = Type.Union([Type.Object({ start: Hhmm, end: Hhmm }, { additionalProperties: false }), Type.Null()], {
  description: 'Non-urgent events in this window wait and go out as one digest when it ends; urgent ones (job.failed, printer.error, printer.offline, material.empty, node.lost, storage.low) still go.',
});
const UserIds = Type.Array(Text(64, { pattern: '^usr_[A-Za-z0-9]+$' }), { maxItems: 100, uniqueItems: true, description: 'email only: users whose address also gets these messages' });

const EmailSettings = Type.Object(
  {
    host: Text(253),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: 'default 587' })),
    security: Type.Optional(Type.Union([Type.Literal('starttls'), Type.Literal('tls'), Type.Literal('none')], { description: 'default starttls (refuses to send if the server cannot upgrade); tls for port 465; none only for a relay on this machine' })),
    username: Type.Optional(Text(254)),
    tls_ca: Type.Optional(TextField({ minLength: 1, maxLength: 20_000, multiline: true, pattern: '-----BEGIN CERTIFICATE-----', description: 'PEM of the certificate (or its CA) to trust, for a mail server with a certificate of its own; the system CAs otherwise' })),
    from: Text(254, { description: 'Sender, e.g. "Print farm <farm@example.com>"' }),
    to: Type.Array(Email, { maxItems: 50, uniqueItems: true }),
  },
  { additionalProperties: false },
);
const NtfySettings = Type.Object({ server_url: Type.Optional(HttpUrl('default https://ntfy.sh')), topic: Text(64, { pattern: '^[-_A-Za-z0-9]+$' }) }, { additionalProperties: false });
const NoSettings = Type.Object({}, { additionalProperties: false });
const TelegramSettings = Type.Object({ chat_id: Text(64), api_url: Type.Optional(HttpUrl('default https://api.telegram.org')) }, { additionalProperties: false });
const PushoverSettings = Type.Object({ api_url: Type.Optional(HttpUrl('default https://api.pushover.net')) }, { additionalProperties: false });

const secretText = (description: string) => Text(2048, { description: `${description}; write-only, sealed at rest` });
const EmailSecrets = Type.Object({ password: Type.Optional(secretText('SMTP password')) }, { additionalProperties: false });
const NtfySecrets = Type.Object({ token: Type.Optional(secretText('access token (tk_…) for a protected topic')) }, { additionalProperties: false });
const HookSecrets = Type.Object({ webhook_url: HttpUrl('the incoming webhook URL (it holds the token); write-only, sealed at rest') }, { additionalProperties: false });
const TelegramSecrets = Type.Object({ bot_token: secretText('bot token from @BotFather') }, { additionalProperties: false });
const PushoverSecrets = Type.Object({ app_token: secretText('application token'), user_key: secretText('user or group key') }, { additionalProperties: false });

const common = {
  name: Text(100),
  events: Events,
  quiet_hours: Type.Optional(QuietHours),
  enabled: Type.Optional(Type.Boolean({ description: 'Default true.' })),
};
const variant = <K extends string, S extends TSchema, X extends TSchema>(kind: K, settings: S, secrets: X) =>
  Type.Object({ kind: Type.Literal(kind), ...common, settings, secrets: Type.Optional(secrets) }, { additionalProperties: false });

export const ChannelCreateBody = Type.Union(
  [
    Type.Object({ kind: Type.Literal('email'), ...common, settings: EmailSettings, secrets: Type.Optional(EmailSecrets), user_ids: Type.Optional(UserIds) }, { additionalProperties: false }),
    variant('ntfy', NtfySettings, NtfySecrets),
    variant('discord', NoSettings, HookSecrets),
    variant('slack', NoSettings, HookSecrets),
    variant('telegram', TelegramSettings, TelegramSecrets),
    variant('pushover', PushoverSettings, PushoverSecrets),
  ],
  {
    examples: [
      { kind: 'ntfy', name: 'My phone', events: ['job.failed', 'job.completed', 'printer.*'], settings: { topic: 'farm-7f3k2' }, quiet_hours: { start: '22:00', end: '07:00' } },
    ],
  },
);
export type ChannelCreate = Static<typeof ChannelCreateBody>;

export const ChannelUpdateBody = Type.Object(
  {
    name: Type.Optional(common.name),
    events: Type.Optional(Events),
    settings: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Replaces the settings (same shape as on create for this kind).' })),
    secrets: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Replaces the secrets (same shape as on create); omit to keep them.' })),
    user_ids: Type.Optional(UserIds),
    quiet_hours: Type.Optional(QuietHours),
    enabled: Type.Optional(Type.Boolean()),
    paused: Type.Optional(Type.Literal(false, { description: 'false: resume a channel the server paused; its waiting messages go out.' })),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ paused: false }, { quiet_hours: null }] },
);
export type ChannelUpdate = Static<typeof ChannelUpdateBody>;

export const SettingsBody = Type.Object(
  { dashboard_url: Type.Union([HttpUrl('The dashboard as people reach it; messages link into it.'), Type.Null()]) },
  { additionalProperties: false, examples: [{ dashboard_url: 'https://farm.example.com' }] },
);
export type NotificationSettingsUpdate = Static<typeof SettingsBody>;

const time = { type: 'string', format: 'date-time' };
const channelExample = {
  id: 'nch_4f9aQ2',
  kind: 'ntfy',
  name: 'My phone',
  events: ['job.failed', 'printer.*'],
  settings: { server_url: 'https://ntfy.sh', topic: 'farm-7f3k2' },
  secrets_set: [],
  user_ids: [],
  quiet_hours: { start: '22:00', end: '07:00' },
  enabled: true,
  status: 'ok',
  paused_reason: null,
  failures_in_a_row: 0,
  created_at: '2026-11-28T02:00:00.000Z',
  updated_at: '2026-11-28T02:00:00.000Z',
};
export const channelRecordSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'nch_…' },
    kind: { type: 'string', enum: ['email', 'ntfy', 'discord', 'slack', 'telegram', 'pushover'] },
    name: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    settings: { type: 'object', description: 'the settings that are not secret' },
    secrets_set: { type: 'array', items: { type: 'string' }, description: 'names of the secrets stored (their values are never returned)' },
    user_ids: { type: 'array', items: { type: 'string' } },
    quiet_hours: { type: ['object', 'null'], properties: { start: { type: 'string' }, end: { type: 'string' } } },
    enabled: { type: 'boolean' },
    status: { type: 'string', enum: ['ok', 'failing', 'paused', 'disabled'], description: 'failing: the last attempts failed and are being retried' },
    paused_reason: { type: ['string', 'null'], description: 'why the server paused it; PATCH {"paused": false} resumes' },
    failures_in_a_row: { type: 'integer' },
    created_at: time,
    updated_at: time,
  },
  examples: [channelExample],
};
export const channelListSchema = { type: 'object', properties: { data: { type: 'array', items: channelRecordSchema } }, examples: [{ data: [channelExample] }] };

const logExample = {
  id: 'ntf_8Qw1',
  channel_id: 'nch_4f9aQ2',
  mode: 'now',
  events: 3,
  title: 'Farm alert: 3 printers offline',
  status: 'delivered',
  attempts: 1,
  next_attempt_at: null,
  last_status: 'HTTP 200',
  error: null,
  created_at: '2026-11-28T02:00:00.000Z',
  updated_at: '2026-11-28T02:00:10.000Z',
  delivered_at: '2026-11-28T02:00:10.000Z',
};
export const deliveryLogSchema = {
  type: 'object',
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          channel_id: { type: 'string' },
          mode: { type: 'string', enum: ['now', 'digest', 'test'] },
          events: { type: 'integer', description: 'how many events the message groups' },
          title: { type: ['string', 'null'] },
          status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
          attempts: { type: 'integer' },
          next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
          last_status: { type: ['string', 'null'], description: 'what the service answered, e.g. HTTP 429, SMTP 250' },
          error: { type: ['string', 'null'] },
          created_at: time,
          updated_at: time,
          delivered_at: { type: ['string', 'null'], format: 'date-time' },
        },
      },
    },
  },
  examples: [{ data: [logExample] }],
};
export const testResultSchema = {
  type: 'object',
  properties: { ok: { type: 'boolean' }, status: { type: ['string', 'null'] }, error: { type: ['string', 'null'] } },
  examples: [{ ok: true, status: 'HTTP 200', error: null }],
};
export const settingsSchema = { type: 'object', properties: { dashboard_url: { type: ['string', 'null'] } }, examples: [{ dashboard_url: 'https://farm.example.com' }] };
