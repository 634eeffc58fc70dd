// Pure rules for public event names: the known types, group wildcards, pattern matching and the scope that may read each.
import { covers } from '../auth/scopes.js';

/** Every event type that is stored in the log and can be sent to webhooks, with when it happens (the API reference prints this). */
export const EVENT_CATALOGUE = {
  'job.created': 'A job was added to the queue (one event per copy).',
  'job.started': 'A job started printing on a printer.',
  'job.paused': 'A printing job was paused.',
  'job.resumed': 'A paused job was resumed.',
  'job.completed': 'A job finished printing.',
  'job.failed': 'A job failed (the printer reported an error, the link was lost, the file could not be read).',
  'job.cancelled': 'A job was cancelled, queued or printing.',
  'printer.online': 'A printer connected and was identified.',
  'printer.offline': 'A printer link was lost or closed.',
  'printer.error': 'A printer reported a fault or an emergency stop was sent.',
  'printer.bed_waiting': 'A print ended and the bed waits to be cleared (the printer\'s `ready` went from true to false); `data.object` is the printer.',
  'material.low': 'A spool fell under its reorder threshold.',
  'material.empty': 'A spool reached zero.',
  'file.pruned': 'Pruning removed a stored file; `data.object` is `{ id, original_name, size, reason }`, reason `retention` or `store_size`.',
  'node.lost': 'A box of a farm of several stopped answering and another marked it lost (once per farm); `data.object` is the node as GET /v1/nodes shows it.',
  'queue.empty': 'A job started and none is left queued (once, in that start\'s transaction); `data.object` is `{ object: "queue", queued: 0, printing, last_started: { id, name, printer_id } }`.',
  'storage.low': 'A box\'s disk went from ok to below the reserve kept for the database, or full (once per episode, checked every minute); `data.object` is `{ object: "storage", node_id, state, free_mb, reserve_mb }`.',
} as const;
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as (keyof typeof EVENT_CATALOGUE)[];
export type EventType = (typeof EVENT_TYPES)[number];

/** Sent only by POST /v1/webhooks/:id/test, to that one webhook; no pattern subscribes to it. */
export const TEST_EVENT_TYPE = 'webhook.test';
/** Live-only: streamed to /v1/events, never stored nor sent to webhooks. */
export const TELEMETRY_EVENT_TYPE = 'printer.telemetry';
/** Live-only: a printing job's progress (at most every 10 % or 60 s), the job as the API shows it. */
export const JOB_PROGRESS_EVENT_TYPE = 'job.progress';
/** Live-only: a printer was added or changed (PATCH, bed cleared or not), the printer as the API shows it. */
export const PRINTER_UPDATED_EVENT_TYPE = 'printer.updated';
/** Live-only: a spool was added, changed (loaded, weighed, archived) or drawn down by a print, as the API shows it. */
export const MATERIAL_UPDATED_EVENT_TYPE = 'material.updated';
export type LiveType =
  | typeof TELEMETRY_EVENT_TYPE
  | typeof JOB_PROGRESS_EVENT_TYPE
  | typeof PRINTER_UPDATED_EVENT_TYPE
  | typeof MATERIAL_UPDATED_EVENT_TYPE;
const LIVE_TYPES: readonly string[] = [TELEMETRY_EVENT_TYPE, JOB_PROGRESS_EVENT_TYPE, PRINTER_UPDATED_EVENT_TYPE, MATERIAL_UPDATED_EVENT_TYPE];

export type RecordableType = EventType | typeof TEST_EVENT_TYPE;
export type StreamType = RecordableType | LiveType;

/** The types only the live stream (or the test endpoint) sends, with what they carry, for the API reference. */
export const STREAM_ONLY_EVENT_MEANINGS: Record<string, string> = {
  [TEST_EVENT_TYPE]: 'Sent only by POST /v1/webhooks/:id/test, to that one webhook; no wildcard subscribes to it.',
  [TELEMETRY_EVENT_TYPE]: 'Live only: a connected printer\'s temperatures and progress, throttled; never stored nor sent to webhooks.',
  [JOB_PROGRESS_EVENT_TYPE]: 'Live only: a printing job\'s progress (at most every 10 % or 60 s), the job as the API shows it.',
  [PRINTER_UPDATED_EVENT_TYPE]: 'Live only: a printer was added or changed (PATCH, bed cleared or not), the printer as the API shows it.',
  [MATERIAL_UPDATED_EVENT_TYPE]: 'Live only: a spool was added, changed or drawn down by a print, the spool as the API shows it.',
};

export const EVENT_GROUPS = ['job.*', 'printer.*', 'material.*', 'file.*', 'node.*', 'queue.*', 'storage.*'] as const;
/** What a webhook's `events` array may hold. */
export const WEBHOOK_EVENT_PATTERNS: readonly string[] = [...EVENT_TYPES, ...EVENT_GROUPS, '*'];
/** What `types=` of the live stream may hold: the webhook patterns plus the live-only and test types. */
export const STREAM_EVENT_PATTERNS: readonly string[] = [
  ...WEBHOOK_EVENT_PATTERNS,
  ...LIVE_TYPES,
  TEST_EVENT_TYPE,
  'webhook.*',
];

/**
 * Whether a pattern selects a type. `*` and the group wildcards cover the known groups only: a webhook on `*` never gets
 * `webhook.test` (it is addressed to one webhook) and never telemetry (live-only), unless the stream names them.
 */
export function patternMatches(pattern: string, type: string): boolean {
  if (pattern === type) return true;
  // Test and live-only types come only to a stream (or webhook) that names them: no wildcard floods a client with them.
  if (type === TEST_EVENT_TYPE || LIVE_TYPES.includes(type)) {
    return pattern === 'webhook.*' && type === TEST_EVENT_TYPE;
  }
  if (pattern === '*') return true;
  return pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1));
}

export const anyPatternMatches = (patterns: readonly string[], type: string): boolean => patterns.some((p) => patternMatches(p, type));

/**
 * The read scope a key needs to see an event of this type (job.* -> jobs:read, ...); webhook.test needs webhooks:write.
 * file.* needs jobs:read, as the files themselves do (GET /v1/files/:id); node.* printers:read, as GET /v1/nodes; queue.* jobs:read.
 */
export function scopeForEventType(type: string): string {
  if (type === TEST_EVENT_TYPE) return 'webhooks:write';
  const group = type.slice(0, type.indexOf('.'));
  // node.* (the farm's boxes) is read with printers:read, as GET /v1/nodes is; storage.* (a box's disk) is admin's.
  const resource = group === 'job' || group === 'file' || group === 'queue' ? 'jobs' : group === 'printer' || group === 'node' ? 'printers' : group === 'material' ? 'materials' : null;
  // An unknown group maps to admin so a new event type is never shown to a key by accident.
  return resource ? `${resource}:read` : 'admin:*';
}

export const mayReadEvent = (scopes: readonly string[], type: string): boolean => covers(scopes, scopeForEventType(type));
