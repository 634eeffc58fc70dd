// Pure scope rules: the known scopes, wildcard matching (`R:*`, `admin:*`) and the no-escalation check for minting keys.
import { SCOPE_CATALOGUE, type ConcreteScope } from './scope-catalogue.js';

/** Concrete scopes an endpoint can require (materials:*, metrics:* and slicer:* are this product's extension scopes); their meanings are in scope-catalogue.ts. */
export const CONCRETE_SCOPES = Object.keys(SCOPE_CATALOGUE) as ConcreteScope[];

export const ADMIN_SCOPE = 'admin:*';

const RESOURCES = [...new Set(CONCRETE_SCOPES.map((s) => s.split(':')[0] as string))];

/** Every scope a key may hold: the concrete ones, one `R:*` per resource, and `admin:*`. */
export const KNOWN_SCOPES: readonly string[] = [...CONCRETE_SCOPES, ...RESOURCES.map((r) => `${r}:*`), ADMIN_SCOPE];

const KNOWN = new Set(KNOWN_SCOPES);

export const isKnownScope = (scope: string): boolean => KNOWN.has(scope);

const resourceOf = (scope: string): string => scope.slice(0, scope.indexOf(':'));

/**
 * Whether one granted scope covers one required scope. `admin:*` covers everything; `R:*` covers every scope of
 * resource R including `R:*` itself; otherwise only an exact match. A concrete scope never covers a wildcard, because
 * the wildcard would also grant actions added later.
 */
export function scopeCovers(granted: string, required: string): boolean {
  if (granted === required || granted === ADMIN_SCOPE) return true;
  if (required === ADMIN_SCOPE) return false;
  return granted.endsWith(':*') && resourceOf(granted) === resourceOf(required);
}

/** Whether a set of granted scopes covers `required`. */
export const covers = (granted: readonly string[], required: string): boolean => granted.some((g) => scopeCovers(g, required));

/** The first requested scope the granted set does not cover (no escalation), or null when all are covered. */
export function firstUncovered(granted: readonly string[], requested: readonly string[]): string | null {
  return requested.find((r) => !covers(granted, r)) ?? null;
}

/** The first unknown scope with its index, or null when all are known. */
export function firstUnknownScope(scopes: readonly string[]): { index: number; scope: string } | null {
  const index = scopes.findIndex((s) => !isKnownScope(s));
  return index === -1 ? null : { index, scope: scopes[index] as string };
}

/** Scopes from a comma-separated list as typed on a command line: trimmed, empties dropped, duplicates removed. */
export const parseScopeList = (text: string): string[] => [...new Set(text.split(',').map((s) => s.trim()).filter(Boolean))];
