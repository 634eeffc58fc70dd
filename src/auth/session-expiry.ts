// When a browser session ends: its lifetime counted from sign-in and its idle timeout counted from its last use, by the organization's settings as they are now.
import type { OrganizationRow } from './organization.repository.js';
import { SESSION_IDLE_MINUTES, SESSION_LIFETIME_HOURS } from './organization.schemas.js';

export interface SessionPolicy {
  lifetimeMs: number;
  idleMs: number;
}

export interface SessionDeadlines {
  /** Sign-in plus the lifetime: the session ends then however busy it is. */
  expiresAtMs: number;
  /** Last use plus the idle timeout: each request moves it. */
  idleExpiresAtMs: number;
}

/** Read on every use, so lowering either setting ends sessions that are already past it at once. */
export function sessionPolicy(org: Pick<OrganizationRow, 'session_lifetime_hours' | 'session_idle_minutes'> | undefined): SessionPolicy {
  const hours = org?.session_lifetime_hours ?? SESSION_LIFETIME_HOURS.default;
  const minutes = org?.session_idle_minutes ?? SESSION_IDLE_MINUTES.default;
  return { lifetimeMs: hours * 3_600_000, idleMs: minutes * 60_000 };
}

export function sessionDeadlines(createdMs: number, lastSeenMs: number, policy: SessionPolicy): SessionDeadlines {
  return { expiresAtMs: createdMs + policy.lifetimeMs, idleExpiresAtMs: lastSeenMs + policy.idleMs };
}

/** Which deadline a session has reached at `nowMs` (the lifetime first when both), or null while it lives. */
export function endedBy(deadlines: SessionDeadlines, nowMs: number): 'lifetime' | 'idle' | null {
  if (nowMs >= deadlines.expiresAtMs) return 'lifetime';
  if (nowMs >= deadlines.idleExpiresAtMs) return 'idle';
  return null;
}
