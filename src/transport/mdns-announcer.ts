// Announces services of this machine by multicast DNS (bonjour-service) until stopped, under names no one else on the
// network holds: probed first, and numbered ("NAME (2)") when taken. A socket that cannot be used is logged, never
// thrown, so the server runs on without its announcement.
import { hostname } from 'node:os';
import { Bonjour, type Service, type ServiceConfig } from 'bonjour-service';
import type { Logger } from '../logger.js';
import { claimedByOther, instanceFqdn, numberedName, type MdnsRecord } from '../protocol/mdns-names.js';
import type { MdnsBrowserOptions } from './mdns-browser.js';
import { probeNames, type MdnsPacket, type MdnsSocket } from './mdns-probe.js';

export interface MdnsAnnouncement {
  /** The DNS-SD service type without underscore and protocol: "http" for `_http._tcp`. */
  type: string;
  /** The instance name people see, e.g. "printfarm on farm-pi". */
  name: string;
  port: number;
  /** TXT key=value pairs. */
  txt: Record<string, string>;
}

export interface MdnsAnnouncerOptions extends MdnsBrowserOptions {
  /** Probe for a name already taken first (RFC 6762); off in tests, where the port is private. Default on. */
  probe?: boolean;
  logger: Logger;
  /** [0, 1): the random delay before probing (tests: 0 for two announcers that probe in step). Default Math.random. */
  random?: () => number;
}

export interface MdnsAnnouncer {
  /** Why the announcement is not heard (the socket failed), or null. */
  error(): string | null;
  /** Says goodbye (TTL 0 answers) and closes the socket. Safe to call twice. */
  stop(): Promise<void>;
}

/** What the announcer needs of bonjour-service's internals: its multicast-dns socket. */
interface WithSocket {
  server: { mdns: MdnsSocket & { on(event: 'error', listener: (err: Error) => void): unknown } };
}

// Beyond this many names taken, something answers for every name (a misbehaving responder): give up, say so once.
const MAX_NAMES = 20;
// After a conflict heard once announced, this long before probing again (RFC 6762 §9 leaves it open; §8.2 waits 1 s).
const RECLAIM_DELAY_MS = 1000;

/** The records that claim the services' `n`-th names, as bonjour-service will announce them (its SRV target is the host name). */
function proposedRecords(services: readonly MdnsAnnouncement[], n: number): MdnsRecord[] {
  return services.flatMap((s) => {
    const name = instanceFqdn(numberedName(s.name, n), s.type);
    return [
      { name, type: 'SRV', ttl: 120, data: { priority: 0, weight: 0, port: s.port, target: hostname() } },
      { name, type: 'TXT', ttl: 4500, data: Object.entries(s.txt).map(([k, v]) => `${k}=${v}`) },
    ];
  });
}

const distinct = (names: string[]): string => [...new Set(names)].join(', ');

export function announceOverMdns(services: readonly MdnsAnnouncement[], options: MdnsAnnouncerOptions): MdnsAnnouncer {
  const { logger } = options;
  let error: string | null = null;
  const fail = (err: Error): void => {
    if (error !== null) return;
    error = `mDNS socket: ${err.message}`;
    logger.warn('not announced on the LAN by mDNS', { error });
  };
  // As in the browser: with an interface, listen on all addresses, membership and outgoing interface keep it there.
  const socketOptions = {
    ...(options.interface !== undefined ? { interface: options.interface, bind: '0.0.0.0' } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
  } as Partial<ServiceConfig>;
  let bonjour: Bonjour;
  try {
    bonjour = new Bonjour(socketOptions, fail);
  } catch (err) {
    fail(err as Error);
    return { error: () => error, stop: () => Promise.resolve() };
  }
  const mdns = (bonjour as unknown as WithSocket).server.mdns;
  // multicast-dns emits 'error' when it cannot bind (port taken, no permission): unheard, it would end the process.
  mdns.on('error', fail);
  const stopping = new AbortController();

  // bonjour-service's own probing cannot rename: on a conflict it drops the service and prints a stack trace. So we
  // probe, and hand it names already ours.
  let published: Service[] = [];
  let unwatch = (): void => {};
  const publish = (n: number): void => {
    published = services.map((s) =>
      bonjour.publish({ type: s.type, name: numberedName(s.name, n), port: s.port, txt: s.txt, probe: false }),
    );
    watch(n);
  };
  // RFC 6762 §9: another host announcing one of our names after all (it did not hear our probes: a network joined
  // later, lost packets) sends both back to probing, where the tie-break or its answer settles who keeps the name. Only
  // the SRV records are compared: host and port are what tell one instance from another, and ours come back to us.
  const watch = (n: number): void => {
    const ours = proposedRecords(services, n).filter((r) => r.type === 'SRV');
    const onResponse = (packet: MdnsPacket): void => {
      if (!claimedByOther(ours, [...(packet.answers ?? []), ...(packet.additionals ?? [])])) return;
      unwatch();
      const withdrawn = published;
      published = [];
      for (const service of withdrawn) service.stop?.();
      // A second first: the other host's announcements still on the way (one per service) must not count against the
      // probe, which would push both on to the next name.
      const later = setTimeout(() => claimOrFail(n), RECLAIM_DELAY_MS);
      unwatch = () => clearTimeout(later);
    };
    mdns.on('response', onResponse);
    unwatch = () => mdns.removeListener('response', onResponse);
  };
  const claim = async (from: number): Promise<void> => {
    for (let n = from; n < from + MAX_NAMES; n++) {
      const outcome = await probeNames(mdns, proposedRecords(services, n), {
        signal: stopping.signal,
        onSendError: fail,
        ...(options.random ? { random: options.random } : {}),
      });
      if (outcome === 'stopped' || stopping.signal.aborted) return;
      if (outcome === 'taken') continue;
      if (n > 1) {
        logger.info('mDNS name taken on the network: announced under the next free one', {
          name: distinct(services.map((s) => s.name)),
          announced_as: distinct(services.map((s) => numberedName(s.name, n))),
        });
      }
      publish(n);
      return;
    }
    logger.warn('not announced on the LAN by mDNS: every name tried is taken', {
      name: distinct(services.map((s) => s.name)),
      tried: MAX_NAMES,
    });
  };
  // Claiming runs on after this returns: whatever it throws (bonjour-service refusing a service) is reported like a
  // socket failure, never left to end the process as an unhandled rejection.
  const claimOrFail = (from: number): void => {
    claim(from).catch((err: Error) => fail(err));
  };
  if (options.probe === false) publish(1);
  else claimOrFail(1);

  let stopped: Promise<void> | null = null;
  return {
    error: () => error,
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        stopping.abort();
        unwatch();
        let done = false;
        const close = (): void => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          bonjour.destroy(() => resolve());
        };
        // The goodbye is best effort: a socket that cannot send must not hold up a shutdown.
        const timer = setTimeout(close, 1000);
        bonjour.unpublishAll(close);
      })),
  };
}
