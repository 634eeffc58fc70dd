// mDNS on the loopback interface for tests: a free port, real responders (bonjour-service), and a check that multicast
// on lo works here (turning lo's MULTICAST flag on as root when that is what is missing).
import { execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import { Bonjour, type Service, type ServiceConfig } from 'bonjour-service';
import { createMdnsBrowser, type MdnsServiceRecord } from '../../src/transport/mdns-browser.js';

/** Every socket on 127.0.0.1's interface: queries and answers never leave the machine. */
export const LOOPBACK = '127.0.0.1';

/** A UDP port free now, so parallel runs (and the real LAN's 5353) never hear each other. */
export async function freeUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, LOOPBACK, resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/** Announces services on the loopback interface at `port`, as a printer's host software would. */
export class LoopbackResponder {
  private readonly bonjour: Bonjour;

  constructor(port: number) {
    this.bonjour = new Bonjour({ interface: LOOPBACK, bind: '0.0.0.0', port } as Partial<ServiceConfig>, (err: Error) => {
      throw err;
    });
  }

  /** Publishes at once (no probing: the names are ours on a private port). */
  publish(config: ServiceConfig): Service {
    return this.bonjour.publish({ probe: false, ...config });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.bonjour.unpublishAll(() => this.bonjour.destroy(() => resolve())));
  }
}

const loFlags = (): string => execFileSync('ip', ['link', 'show', 'lo'], { encoding: 'utf8' });

async function roundTrip(port: number): Promise<boolean> {
  const responder = new LoopbackResponder(port);
  responder.publish({ name: 'probe', type: 'pfprobe', port: 9, host: 'probe.local' });
  const { services } = await createMdnsBrowser({ interface: LOOPBACK, port }).browse(['pfprobe'], 700);
  await responder.close();
  return services.some((s) => s.name === 'probe');
}

export interface LoopbackMdns {
  /** Why the tests cannot run here, or null when they can. */
  skip: string | null;
  /** Undoes what was changed to make it work (lo's MULTICAST flag). */
  restore(): void;
}

/**
 * Checks that an mDNS answer sent on lo reaches a browser on lo. Where it does not and lo lacks the MULTICAST flag,
 * root turns it on (and restore() turns it off again); anyone else gets a reason to skip.
 */
export async function prepareLoopbackMdns(): Promise<LoopbackMdns> {
  const nothing = { restore() {} };
  if (await roundTrip(await freeUdpPort())) return { skip: null, ...nothing };
  let flags: string;
  try {
    flags = loFlags();
  } catch {
    return { skip: 'multicast on the loopback interface does not work here, and `ip` is missing to look why', ...nothing };
  }
  if (/[<,]MULTICAST[,>]/.test(flags)) return { skip: 'lo has the MULTICAST flag but an mDNS answer on lo did not arrive', ...nothing };
  if (process.getuid?.() !== 0) return { skip: 'lo lacks the MULTICAST flag and only root may set it (ip link set lo multicast on)', ...nothing };
  execFileSync('ip', ['link', 'set', 'lo', 'multicast', 'on']);
  const restore = (): void => {
    execFileSync('ip', ['link', 'set', 'lo', 'multicast', 'off']);
  };
  if (await roundTrip(await freeUdpPort())) return { skip: null, restore };
  restore();
  return { skip: 'an mDNS answer on lo did not arrive, even with the MULTICAST flag on lo', ...nothing };
}

/**
 * Browses `types` on the loopback interface at `port` again and again until `done` holds for what answered, or 10 s
 * pass (an announcer probing takes about a second per name it tries); hands back the last answers.
 */
export async function browseUntil(
  port: number,
  types: string[],
  done: (found: MdnsServiceRecord[]) => boolean,
): Promise<MdnsServiceRecord[]> {
  const deadline = Date.now() + 10_000;
  let found: MdnsServiceRecord[] = [];
  do {
    const answers = await createMdnsBrowser({ interface: LOOPBACK, port }).browse(types, 700);
    if (answers.error !== null) throw new Error(answers.error);
    found = answers.services;
  } while (!done(found) && Date.now() < deadline);
  return found;
}
