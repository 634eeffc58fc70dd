// Row types of every table, for kysely's typed queries. One interface per table; timestamps are ISO 8601 UTC strings.
import type { Generated } from 'kysely';

export interface OrganizationTable {
  id: string;
  name: string;
  plan: 'free' | 'pro' | 'enterprise';
  rate_limit_per_hour: number;
  currency: string;
  hourly_rate: number;
  energy_cost_per_kwh: number;
  timezone: string;
  /** SQLite has no boolean: 0 or 1. */
  auto_start: number;
  created_at: string;
  updated_at: string;
  /** JSON array of host names or patterns webhook receivers may use; empty allows any. */
  webhook_allowed_hosts: Generated<string>;
}

export interface UserTable {
  id: string;
  email: string;
  name: string;
  role: 'owner' | 'admin' | 'operator' | 'viewer';
  status: 'active' | 'invited';
  invite_token_hash: string | null;
  invited_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyTable {
  id: string;
  name: string;
  /** live | test | dev: the environment the key was minted for. */
  env: string;
  /** Display prefix, e.g. "svc_live_Ab12": never enough to use the key. */
  prefix: string;
  /** Hex SHA-256 of the whole key string. */
  hash: string;
  /** JSON array of scope strings. */
  scopes: string;
  user_id: string | null;
  created_by_key_id: string | null;
  created_at: string;
  last_used_at: string | null;
  /** Set when the key was rolled: it works until then. */
  expires_at: string | null;
  revoked_at: string | null;
  /** The key that replaced this one by a roll. */
  rolled_to: string | null;
}

export interface IdempotencyKeyTable {
  /** The API key that sent the request: idempotency keys are scoped per API key. */
  api_key_id: string;
  idem_key: string;
  /** SHA-256 of method, path and raw body. */
  fingerprint: string;
  /** Null while the first request is still running. */
  status: number | null;
  /** JSON { body, headers } of the stored response; "sealed:" + AES-GCM of it when the caller used an API key. */
  response: string | null;
  /** Unix ms; rows older than 24 h are purged. */
  created_ms: number;
}

export interface SchemaVersionTable {
  version: number;
  name: string;
  applied_at: string;
}


export interface EventTable {
  /** Commit order of the log; generated. */
  seq: Generated<number>;
  /** evt_…, the id receivers de-duplicate by. */
  id: string;
  type: string;
  created_at: string;
  created_ms: number;
  /** The JSON event object exactly as sent: { id, type, created_at, data: { object } }. */
  body: string;
}

export interface WebhookTable {
  id: string;
  url: string;
  /** JSON array of event names and wildcards. */
  events: string;
  secret: string;
  /** The secret before the last rotation; still signs until previous_secret_until_ms. */
  previous_secret: string | null;
  previous_secret_until_ms: number | null;
  enabled: number;
  /** The per-webhook sequence number of its newest delivery. */
  last_seq: number;
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveryTable {
  id: string;
  webhook_id: string;
  event_seq: number;
  /** Per-webhook sequence number, so a receiver can reorder. */
  seq: number;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** Unix ms of the next attempt while pending; null once final. */
  next_attempt_ms: number | null;
  last_status_code: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  /** At most 1 KB of the receiver's last response body. */
  response_excerpt: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

export interface Database {
  organization: OrganizationTable;
  users: UserTable;
  api_keys: ApiKeyTable;
  idempotency_keys: IdempotencyKeyTable;
  schema_version: SchemaVersionTable;
  events: EventTable;
  webhooks: WebhookTable;
  webhook_deliveries: WebhookDeliveryTable;
}
