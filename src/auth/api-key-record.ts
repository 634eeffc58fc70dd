// The API key record clients see (never the hash), and its JSON Schema for the OpenAPI document.
import type { JsonSchema } from '../http/validation.js';
import type { ApiKeyRow } from './api-keys.repository.js';

export interface ApiKeyRecord {
  id: string;
  name: string;
  scopes: string[];
  prefix: string;
  environment: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  /** active; expiring (rolled, still inside its 24 h overlap); expired; revoked. */
  status: ApiKeyStatus;
}

export type ApiKeyStatus = 'active' | 'expiring' | 'expired' | 'revoked';
export const API_KEY_STATUSES: readonly ApiKeyStatus[] = ['active', 'expiring', 'expired', 'revoked'];

export function apiKeyStatus(row: Pick<ApiKeyRow, 'revoked_at' | 'expires_at'>, nowMs: number): ApiKeyStatus {
  if (row.revoked_at) return 'revoked';
  if (!row.expires_at) return 'active';
  return Date.parse(row.expires_at) <= nowMs ? 'expired' : 'expiring';
}

/** `lastUsedIso` is the in-memory value, which may be newer than the coalesced column. */
export function toApiKeyRecord(row: ApiKeyRow, nowMs: number, lastUsedIso: string | null = null): ApiKeyRecord {
  const stored = row.last_used_at;
  const lastUsed = stored && lastUsedIso ? (stored > lastUsedIso ? stored : lastUsedIso) : (stored ?? lastUsedIso);
  return {
    id: row.id,
    name: row.name,
    scopes: JSON.parse(row.scopes) as string[],
    prefix: row.prefix,
    environment: row.env,
    created_at: row.created_at,
    last_used_at: lastUsed,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    status: apiKeyStatus(row, nowMs),
  };
}

const nullableTime = { type: ['string', 'null'], format: 'date-time' };

export const apiKeyRecordSchema: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'prefix key_' },
    name: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string' } },
    prefix: { type: 'string', description: 'the first characters of the key, to tell keys apart; never usable' },
    environment: { type: 'string', enum: ['live', 'test', 'dev'] },
    created_at: { type: 'string', format: 'date-time' },
    last_used_at: { ...nullableTime, description: 'coalesced: may lag real use by up to a minute after a restart' },
    expires_at: { ...nullableTime, description: 'set when the key was rolled: it works until then' },
    revoked_at: nullableTime,
    status: { type: 'string', enum: ['active', 'expiring', 'expired', 'revoked'] },
  },
  required: ['id', 'name', 'scopes', 'prefix', 'created_at', 'last_used_at', 'expires_at'],
};

/** Create and roll responses: the record plus the key value, shown this once. */
export const apiKeyWithSecretSchema: JsonSchema = {
  ...apiKeyRecordSchema,
  properties: {
    ...(apiKeyRecordSchema.properties as Record<string, unknown>),
    key: { type: 'string', description: 'the API key itself; returned only in this response' },
  },
  required: [...(apiKeyRecordSchema.required as string[]), 'key'],
};
