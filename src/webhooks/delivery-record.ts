// The delivery record clients see (GET /v1/webhooks/:id/deliveries) and its id.
import { isoTime } from '../clock.js';
import { randomBase62 } from '../ids.js';
import type { DeliveryRow } from './deliveries.repository.js';

export const newDeliveryId = (): string => `dlv_${randomBase62(20)}`;

export type DeliveryRecord = {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  sequence: number;
  status: DeliveryRow['status'];
  attempts: number;
  next_attempt_at: string | null;
  status_code: number | null;
  duration_ms: number | null;
  error: string | null;
  response_excerpt: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
};

export function toDeliveryRecord(row: DeliveryRow & { event_id: string; event_type: string }): DeliveryRecord {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type,
    sequence: row.seq,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' && row.next_attempt_ms !== null ? isoTime(row.next_attempt_ms) : null,
    status_code: row.last_status_code,
    duration_ms: row.last_duration_ms,
    error: row.last_error,
    response_excerpt: row.response_excerpt,
    created_at: row.created_at,
    updated_at: row.updated_at,
    delivered_at: row.delivered_at,
  };
}

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });

export const deliveryRecordSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'dlv_…' },
    webhook_id: { type: 'string' },
    event_id: { type: 'string', description: 'evt_…, also sent as X-Event-Id' },
    event_type: { type: 'string' },
    sequence: { type: 'integer', description: 'per-webhook sequence number, also in the body as `sequence`' },
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attempts: { type: 'integer' },
    next_attempt_at: nullable('string', { format: 'date-time', description: 'while pending' }),
    status_code: nullable('integer', { description: 'HTTP status of the last attempt; null when the receiver was not reached' }),
    duration_ms: nullable('integer'),
    error: nullable('string'),
    response_excerpt: nullable('string', { description: 'first 1 KB of the last response body' }),
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    delivered_at: nullable('string', { format: 'date-time' }),
  },
};

export const DELIVERY_FIELDS = Object.keys(deliveryRecordSchema.properties);
