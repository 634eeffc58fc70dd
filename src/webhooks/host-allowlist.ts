// Pure check of a receiver URL against the organization's webhook_allowed_hosts (names, *.suffix wildcards, IPv4 CIDR).
import { isIPv4 } from 'node:net';

const PATTERN = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const CIDR = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/;

/** Why a pattern is invalid, or null. Accepted: `printers.lan`, `*.example.com`, `192.168.1.20`, `10.0.0.0/8`, `[::1]`. */
export function invalidHostPattern(pattern: string): string | null {
  const p = pattern.toLowerCase();
  const cidr = CIDR.exec(p);
  if (cidr) return isIPv4(cidr[1] as string) && Number(cidr[2]) <= 32 ? null : 'not a valid IPv4 CIDR range';
  if (isIPv4(p) || /^\[[0-9a-f:.]+\]$/.test(p)) return null;
  return PATTERN.test(p) ? null : 'expected a host name, *.domain, an IPv4 address or range (a.b.c.d/n) or [IPv6]';
}

const ipv4ToInt = (ip: string): number => ip.split('.').reduce((acc, octet) => (acc << 8) + Number(octet), 0) >>> 0;

function hostMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase();
  if (p === host) return true;
  if (p.startsWith('*.')) return host.endsWith(p.slice(1)) && host.length > p.length - 1;
  const cidr = CIDR.exec(p);
  if (cidr && isIPv4(host)) {
    const bits = Number(cidr[2]);
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    return (ipv4ToInt(host) & mask) === (ipv4ToInt(cidr[1] as string) & mask);
  }
  return false;
}

/** An empty list allows any receiver: on a LAN private addresses are the normal case. */
export function hostAllowed(allowed: readonly string[], url: string): boolean {
  if (allowed.length === 0) return true;
  const host = new URL(url).hostname.toLowerCase();
  return allowed.some((p) => hostMatches(p, host));
}
