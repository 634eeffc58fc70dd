// Announces services of this machine by multicast DNS (bonjour-service) until stopped; a socket that cannot be used is
// reported, never thrown, so the server runs on without its announcement.
import { Bonjour, type ServiceConfig } from 'bonjour-service';
import type { MdnsBrowserOptions } from './mdns-browser.js';

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
}

export interface MdnsAnnouncer {
  /** Why the announcement is not heard (the socket failed), or null. */
  error(): string | null;
  /** Says goodbye (TTL 0 answers) and closes the socket. Safe to call twice. */
  stop(): Promise<void>;
}

export function announceOverMdns(services: readonly MdnsAnnouncement[], options: MdnsAnnouncerOptions = {}): MdnsAnnouncer {
  let error: string | null = null;
  const fail = (err: Error): void => {
    error ??= `mDNS socket: ${err.message}`;
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
  // multicast-dns emits 'error' when it cannot bind (port taken, no permission): unheard, it would end the process.
  (bonjour as unknown as { server: { mdns: { on(e: 'error', l: (err: Error) => void): void } } }).server.mdns.on('error', fail);
  for (const s of services) {
    const service = bonjour.publish({ type: s.type, name: s.name, port: s.port, txt: s.txt, probe: options.probe ?? true });
    // A name conflict found by probing ends that announcement only.
    service.on('error', fail);
  }
  let stopped: Promise<void> | null = null;
  return {
    error: () => error,
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
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
