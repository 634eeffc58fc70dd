// Organization settings: reading, validated partial updates, and the hourly request limit its plan gives each key.
import { isoTime, type Clock } from '../clock.js';
import { badRequest, quoteInput } from '../errors.js';
import type { Db } from '../storage/db.js';
import { invalidHostPattern } from '../net/host-allowlist.js';
import { findOrganization, updateOrganization, type OrganizationRow } from './organization.repository.js';
import type { OrganizationPatch, OrganizationRecord } from './organization.schemas.js';

export const PLAN_LIMITS = { free: 100, pro: 1000 } as const;

/**
 * The least an admin:* key may make per hour whatever the plan says: a plan or limit set too low must never lock out
 * the keys that can set it back (and leave room to find the script that ran away).
 */
export const ADMIN_HOURLY_FLOOR = 1000;

/** The path of the organization settings: the one route an admin key can always reach. */
export const ORGANIZATION_PATH = '/v1/organization';

/** Requests per key per hour: fixed for free and pro, the organization's own number for enterprise. */
export function hourlyLimit(org: Pick<OrganizationRow, 'plan' | 'rate_limit_per_hour'> | undefined): number {
  if (!org) return PLAN_LIMITS.free;
  return org.plan === 'enterprise' ? org.rate_limit_per_hour : PLAN_LIMITS[org.plan];
}

/**
 * The limit one key lives under. `enforce: false` means the request is counted and reported but never refused: an
 * admin:* key reading or changing the organization, so the owner can always repair a limit set too low.
 */
export function keyHourlyLimit(
  org: Pick<OrganizationRow, 'plan' | 'rate_limit_per_hour'> | undefined,
  isAdmin: boolean,
  request: { method: string; path: string },
): { limit: number; enforce: boolean } {
  const planned = hourlyLimit(org);
  if (!isAdmin) return { limit: planned, enforce: true };
  const repairs = request.path === ORGANIZATION_PATH && (request.method === 'GET' || request.method === 'PATCH');
  return { limit: Math.max(planned, ADMIN_HOURLY_FLOOR), enforce: !repairs };
}

/** `rate_limit_per_hour` reports the limit in force, so free and pro show 100 and 1000. */
export function toOrganizationRecord(row: OrganizationRow): OrganizationRecord {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    rate_limit_per_hour: hourlyLimit(row),
    currency: row.currency,
    hourly_rate: row.hourly_rate,
    energy_cost_per_kwh: row.energy_cost_per_kwh,
    timezone: row.timezone,
    auto_start: row.auto_start === 1,
    cool_on_pause: row.cool_on_pause === 1,
    webhook_allowed_hosts: JSON.parse(row.webhook_allowed_hosts) as string[],
    file_url_hosts: JSON.parse(row.file_url_hosts) as string[],
    power_budget_watts: row.power_budget_watts,
    storage_reserve_mb: row.storage_reserve_mb,
    session_lifetime_hours: row.session_lifetime_hours,
    session_idle_minutes: row.session_idle_minutes,
    backup_time: row.backup_time,
    backup_keep: row.backup_keep,
    backup_with_files: row.backup_with_files === 1,
    file_retention_days: row.file_retention_days,
    file_store_max_gb: row.file_store_max_gb,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function getOrganization(db: Db): Promise<OrganizationRow> {
  const row = await findOrganization(db);
  // Keys exist only after bootstrap created the organization, so a missing row is a broken database, not a client error.
  if (!row) throw new Error('the organization row is missing: the database was not initialised by printfarm');
  return row;
}

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** An IANA zone name Intl knows (UTC and Etc/* included). */
export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The rules a JSON Schema cannot state: ISO 4217 membership and time zone existence. */
export function checkOrganizationPatch(patch: OrganizationPatch): void {
  if (patch.name !== undefined && !patch.name.trim()) throw badRequest('name: must not be blank');
  if (patch.currency !== undefined && !CURRENCIES.has(patch.currency)) {
    throw badRequest(`currency: ${quoteInput(patch.currency)} is not an ISO 4217 currency code (e.g. USD, EUR, GBP)`);
  }
  if (patch.timezone !== undefined && !isValidTimeZone(patch.timezone)) {
    throw badRequest(`timezone: ${quoteInput(patch.timezone)} is not an IANA time zone (e.g. UTC, Europe/Berlin)`);
  }
  checkHostList('webhook_allowed_hosts', patch.webhook_allowed_hosts);
  checkHostList('file_url_hosts', patch.file_url_hosts);
}

function checkHostList(field: string, hosts: readonly string[] | undefined): void {
  hosts?.forEach((host, i) => {
    const why = invalidHostPattern(host);
    if (why) throw badRequest(`${field}[${i}]: ${quoteInput(host)} ${why}`);
  });
}

/** Stored as JSON, lower case (host names are matched without case). */
const hostListColumn = (hosts: readonly string[]): string => JSON.stringify(hosts.map((h) => h.toLowerCase()));

/** What a PATCH changed that the caller should know about: today only a lowered rate limit. */
export function patchWarnings(before: OrganizationRow, after: OrganizationRow, nowMs: number): string[] {
  const was = hourlyLimit(before);
  const now = hourlyLimit(after);
  if (now >= was) return [];
  const resetIso = new Date((Math.floor(nowMs / 3_600_000) + 1) * 3_600_000).toISOString();
  const admins =
    now < ADMIN_HOURLY_FLOOR
      ? `admin:* keys keep ${ADMIN_HOURLY_FLOOR} per hour, and can always read and change the organization`
      : 'admin:* keys can always read and change the organization';
  return [
    `rate limit lowered from ${was} to ${now} requests per API key per hour, at once: a key that already made ${now} ` +
      `requests this hour gets 429 until ${resetIso}; ${admins}`,
  ];
}

export async function patchOrganization(
  deps: { db: Db; clock: Clock },
  patch: OrganizationPatch,
): Promise<{ row: OrganizationRow; warnings: string[] }> {
  checkOrganizationPatch(patch);
  const current = await getOrganization(deps.db);
  // Free and pro have fixed limits; accepting a number there would echo back a limit that is not in force.
  if (patch.rate_limit_per_hour !== undefined && (patch.plan ?? current.plan) !== 'enterprise') {
    throw badRequest(`rate_limit_per_hour: can only be set on the enterprise plan (the ${patch.plan ?? current.plan} plan allows ${hourlyLimit({ plan: patch.plan ?? current.plan, rate_limit_per_hour: 1 })} per hour)`);
  }
  const { auto_start, cool_on_pause, backup_with_files, name, webhook_allowed_hosts, file_url_hosts, ...rest } = patch;
  const update = {
    ...rest,
    ...(webhook_allowed_hosts !== undefined ? { webhook_allowed_hosts: hostListColumn(webhook_allowed_hosts) } : {}),
    ...(file_url_hosts !== undefined ? { file_url_hosts: hostListColumn(file_url_hosts) } : {}),
    ...(name !== undefined ? { name: name.trim() } : {}),
    ...(auto_start !== undefined ? { auto_start: auto_start ? 1 : 0 } : {}),
    ...(cool_on_pause !== undefined ? { cool_on_pause: cool_on_pause ? 1 : 0 } : {}),
    ...(backup_with_files !== undefined ? { backup_with_files: backup_with_files ? 1 : 0 } : {}),
    updated_at: isoTime(deps.clock.now()),
  };
  await updateOrganization(deps.db, current.id, update);
  const row = await getOrganization(deps.db);
  return { row, warnings: patchWarnings(current, row, deps.clock.now()) };
}
