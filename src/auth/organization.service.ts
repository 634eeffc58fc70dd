// Organization settings: reading, validated partial updates, and the hourly request limit its plan gives each key.
import { isoTime, type Clock } from '../clock.js';
import { badRequest } from '../errors.js';
import type { Db } from '../storage/db.js';
import type { OrganizationTable } from '../storage/schema.js';
import { invalidHostPattern } from '../webhooks/host-allowlist.js';
import { findOrganization, updateOrganization, type OrganizationRow } from './organization.repository.js';

export const PLAN_LIMITS = { free: 100, pro: 1000 } as const;
export type Plan = OrganizationTable['plan'];

/** Requests per key per hour: fixed for free and pro, the organization's own number for enterprise. */
export function hourlyLimit(org: Pick<OrganizationRow, 'plan' | 'rate_limit_per_hour'> | undefined): number {
  if (!org) return PLAN_LIMITS.free;
  return org.plan === 'enterprise' ? org.rate_limit_per_hour : PLAN_LIMITS[org.plan];
}

export interface OrganizationRecord {
  id: string;
  name: string;
  plan: Plan;
  rate_limit_per_hour: number;
  currency: string;
  hourly_rate: number;
  energy_cost_per_kwh: number;
  timezone: string;
  auto_start: boolean;
  webhook_allowed_hosts: string[];
  created_at: string;
  updated_at: string;
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
    webhook_allowed_hosts: JSON.parse(row.webhook_allowed_hosts) as string[],
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

export interface OrganizationPatch {
  name?: string;
  plan?: Plan;
  rate_limit_per_hour?: number;
  currency?: string;
  hourly_rate?: number;
  energy_cost_per_kwh?: number;
  timezone?: string;
  auto_start?: boolean;
  webhook_allowed_hosts?: string[];
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
    throw badRequest(`currency: "${patch.currency}" is not an ISO 4217 currency code (e.g. USD, EUR, GBP)`);
  }
  if (patch.timezone !== undefined && !isValidTimeZone(patch.timezone)) {
    throw badRequest(`timezone: "${patch.timezone}" is not an IANA time zone (e.g. UTC, Europe/Berlin)`);
  }
  patch.webhook_allowed_hosts?.forEach((host, i) => {
    const why = invalidHostPattern(host);
    if (why) throw badRequest(`webhook_allowed_hosts[${i}]: "${host}" ${why}`);
  });
}

export async function patchOrganization(deps: { db: Db; clock: Clock }, patch: OrganizationPatch): Promise<OrganizationRow> {
  checkOrganizationPatch(patch);
  const current = await getOrganization(deps.db);
  // Free and pro have fixed limits; accepting a number there would echo back a limit that is not in force.
  if (patch.rate_limit_per_hour !== undefined && (patch.plan ?? current.plan) !== 'enterprise') {
    throw badRequest(`rate_limit_per_hour: can only be set on the enterprise plan (the ${patch.plan ?? current.plan} plan allows ${hourlyLimit({ plan: patch.plan ?? current.plan, rate_limit_per_hour: 1 })} per hour)`);
  }
  const { auto_start, name, webhook_allowed_hosts, ...rest } = patch;
  const update = {
    ...rest,
    ...(webhook_allowed_hosts !== undefined ? { webhook_allowed_hosts: JSON.stringify(webhook_allowed_hosts.map((h) => h.toLowerCase())) } : {}),
    ...(name !== undefined ? { name: name.trim() } : {}),
    ...(auto_start !== undefined ? { auto_start: auto_start ? 1 : 0 } : {}),
    updated_at: isoTime(deps.clock.now()),
  };
  await updateOrganization(deps.db, current.id, update);
  return getOrganization(deps.db);
}
