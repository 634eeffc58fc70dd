// Browses the LAN by multicast DNS for a bounded time (bonjour-service) and hands back the services that answered, raw.
import type { Buffer } from 'node:buffer';
import { Bonjour, type Browser, type Service } from 'bonjour-service';

/** One service instance as it answered: nothing interpreted yet (that is the printers feature's pure part). */
export interface MdnsServiceRecord {
  /** The DNS-SD service type without underscore and protocol: "moonraker" for `_moonraker._tcp`. */
  type: string;
  /** The instance name, e.g. "Voron @ voron". */
  name: string;
  /** The SRV target host, e.g. "voron.local". */
  host: string;
  port: number;
  /** The A and AAAA records that came with the answer. */
  addresses: string[];
  /** The TXT strings as sent ("key=value"), in order. */
  txt: string[];
  /** Where the answer came from: the responder's own address on our network (null if unknown). */
  source_address: string | null;
}

/** A browse's answers, and why the socket could not be used (then there are none), or null. */
export interface MdnsAnswers {
  services: MdnsServiceRecord[];
  error: string | null;
}

export interface MdnsBrowser {
  /** Asks for each service type and collects the answers for `durationMs`; never rejects (see `error`). */
  browse(serviceTypes: readonly string[], durationMs: number): Promise<MdnsAnswers>;
  /** Ends browses in flight (they resolve with what they found so far); later browses find nothing. */
  close(): void;
}

export interface MdnsBrowserOptions {
  /**
   * The IPv4 address of the one interface to query and listen on (tests: "127.0.0.1", so nothing leaves the
   * loopback interface). Default: multicast-dns's choice, the default route's interface for queries.
   */
  interface?: string;
  /** UDP port; 5353 is mDNS. Tests use another so parallel runs and the real LAN never hear each other. */
  port?: number;
}

/** What a browse needs of bonjour-service's internals: its multicast-dns socket, to hear bind errors. */
interface WithSocket {
  server: { mdns: { on(event: 'error', listener: (err: Error) => void): void } };
}

/** TXT strings from a service; bonjour-service's own decoding drops `key=` (an empty value) and keys without '='. */
function rawTxt(service: Service): string[] {
  const raw = (service as Service & { rawTxt?: unknown }).rawTxt;
  const parts = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return parts.filter((p): p is Buffer => p instanceof Uint8Array).map((p) => p.toString('utf8'));
}

function toRecord(service: Service): MdnsServiceRecord {
  return {
    type: service.type,
    name: service.name,
    host: service.host,
    port: service.port,
    addresses: [...(service.addresses ?? [])],
    txt: rawTxt(service),
    source_address: service.referer?.address ?? null,
  };
}

export function createMdnsBrowser(options: MdnsBrowserOptions = {}): MdnsBrowser {
  const stops = new Set<() => void>();
  let closed = false;
  return {
    browse(serviceTypes, durationMs) {
      if (closed || serviceTypes.length === 0) return Promise.resolve({ services: [], error: null });
      return new Promise((resolve) => {
        let error: string | null = null;
        // With an interface, listen on all addresses: a socket bound to 127.0.0.1 never receives datagrams sent to the
        // group address. The membership and the outgoing interface are what keep the traffic on that interface.
        const socketOptions = {
          ...(options.interface !== undefined ? { interface: options.interface, bind: '0.0.0.0' } : {}),
          ...(options.port !== undefined ? { port: options.port } : {}),
        };
        const fail = (err: Error): void => {
          error ??= `mDNS socket: ${err.message}`;
        };
        // The callback hears failed answers to queries; we publish nothing, but a failure must not throw.
        let bonjour: Bonjour;
        try {
          bonjour = new Bonjour(socketOptions, fail);
        } catch (err) {
          resolve({ services: [], error: `mDNS socket: ${(err as Error).message}` });
          return;
        }
        // multicast-dns emits 'error' when it cannot bind (port taken, no permission): unheard, it would end the process.
        (bonjour as unknown as WithSocket).server.mdns.on('error', fail);
        // A browser asks for one type (a PTR question per query) and gathers answers whoever asked.
        const browsers: Browser[] = serviceTypes.map((type) => bonjour.find({ type, protocol: 'tcp' }));
        // Asked once more half way: a lost datagram or a responder that was busy gets a second chance.
        const again = setTimeout(() => browsers.forEach((b) => b.update()), durationMs / 2);
        const done = setTimeout(() => stop(), durationMs);
        const stop = (): void => {
          clearTimeout(again);
          clearTimeout(done);
          stops.delete(stop);
          const services = browsers.flatMap((b) => b.services.map(toRecord));
          for (const b of browsers) b.stop();
          bonjour.destroy();
          resolve({ services, error });
        };
        stops.add(stop);
      });
    },
    close() {
      closed = true;
      for (const stop of [...stops]) stop();
    },
  };
}
