// Which hosts a file_url download may reach: forbidden address classes and the organization's file_url_hosts, checked
// on the URL's host and, inside the socket's own lookup, on every address a name resolves to (so what was checked is what is connected to).
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { AppError } from '../errors.js';
import { hasAddressPatterns, matchesHostList } from '../net/host-allowlist.js';
import { forbiddenAddress, parseIp, type ForbiddenKind } from '../net/ip-address.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address of a host name. Injected so tests can answer with addresses they must never connect to. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system's resolver (hosts file, DNS), as node:http would use it. */
export const systemResolver: HostResolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export interface UrlAccess {
  resolve: HostResolver;
  /** The organization's file_url_hosts: empty allows any host whose addresses are not forbidden. */
  allowedHosts: readonly string[];
}

/** The `details` of a 422 file_url_forbidden: the address class, or the organization's list. */
export type RefusalReason = ForbiddenKind | 'not_in_file_url_hosts';

const SETTING = "the organization's file_url_hosts";

/**
 * A 422 whose message is `prefix` and the reason: `prefix` says which hop ("file_url: " for the address given,
 * "file_url: the redirect to … is refused: " for a redirect).
 */
const refusal = (prefix: string, reason: string, details: RefusalReason): AppError =>
  new AppError(422, 'file_url_forbidden', `${prefix}${reason}`, details);

const bare = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Checks what can be checked before connecting: an IP literal (which no lookup will see) against the forbidden
 * classes and the list, and a host name against a list that holds names only. Throws the 422.
 */
export function checkUrlHost(url: URL, access: UrlAccess, prefix: string): void {
  const host = url.hostname.toLowerCase();
  const ip = parseIp(host);
  if (ip) {
    const bad = forbiddenAddress(ip);
    if (bad) throw refusal(prefix, `${bare(host)} is ${bad.description}`, bad.kind);
  }
  const { allowedHosts } = access;
  if (allowedHosts.length === 0 || matchesHostList(allowedHosts, host)) return;
  // A name may still be allowed by the address it resolves to, when the list has addresses or ranges.
  if (ip || !hasAddressPatterns(allowedHosts)) throw refusal(prefix, `host ${bare(host)} is not in ${SETTING}`, 'not_in_file_url_hosts');
}

/** Why none of `addresses` may be connected to, or null. All must pass: one bad answer refuses the name. */
function refuseResolved(hostname: string, addresses: readonly ResolvedAddress[], access: UrlAccess, prefix: string): Error | null {
  const byName = access.allowedHosts.length === 0 || matchesHostList(access.allowedHosts, hostname);
  for (const { address } of addresses) {
    const ip = parseIp(address);
    // A resolver answer that is not an address is never handed to a socket.
    if (!ip) return new Error(`the resolver answered "${address}" for ${hostname}, which is not an IP address`);
    const bad = forbiddenAddress(ip);
    if (bad) return refusal(prefix, `${hostname} resolves to ${address}, ${bad.description}`, bad.kind);
    if (!byName && !matchesHostList(access.allowedHosts, address)) {
      return refusal(prefix, `host ${hostname} (${address}) is not in ${SETTING}`, 'not_in_file_url_hosts');
    }
  }
  return null;
}

const familyOf = (family: unknown): 4 | 6 | null => (family === 4 || family === 'IPv4' ? 4 : family === 6 || family === 'IPv6' ? 6 : null);

/**
 * A `lookup` for node:net: resolves with `access.resolve`, refuses (the socket then never connects) or hands the
 * checked addresses to the socket, so no second resolution can swap in another address (DNS rebinding).
 */
export function guardedLookup(access: UrlAccess, prefix: string): LookupFunction {
  return (hostname, options, callback) => {
    access
      .resolve(hostname)
      .then((all) => {
        const err = refuseResolved(hostname, all, access, prefix);
        if (err) throw err;
        const family = familyOf(options.family);
        const usable = family ? all.filter((a) => a.family === family) : all;
        if (usable.length === 0) throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
        return usable;
      })
      .then(
        (usable) => {
          if (options.all) callback(null, usable);
          else callback(null, (usable[0] as ResolvedAddress).address, (usable[0] as ResolvedAddress).family);
        },
        (err: NodeJS.ErrnoException) => callback(err, ''),
      );
  };
}
