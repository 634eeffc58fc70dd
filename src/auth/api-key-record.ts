// Turns an api_keys row into the record clients see (never the hash); the record's schema and type are in api-keys.schemas.ts.
import type { ApiKeyRow } from './api-keys.repository.js';
import type { ApiKeyRecord, ApiKeyStatus } from './api-keys.schemas.js';

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
    environment: row.env as ApiKeyRecord['environment'],
    created_at: row.created_at,
    last_used_at: lastUsed,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    status: apiKeyStatus(row, nowMs),
  };
}
