// Asks by multicast DNS whether service instance names are taken before they are announced (RFC 6762 §8.1), and
// settles with another host that probes for the same names at the same moment (§8.2).
import { losesTieBreak, sameDnsName, type MdnsRecord } from '../protocol/mdns-names.js';

/** A decoded mDNS packet, as multicast-dns hands it to its 'query' and 'response' listeners. */
export interface MdnsPacket {
  questions?: Array<{ name: string; type: string }>;
  answers?: MdnsRecord[];
  authorities?: MdnsRecord[];
  additionals?: MdnsRecord[];
}

/** What probing needs of a multicast-dns socket. */
export interface MdnsSocket {
  query(packet: MdnsPacket, callback: (err?: Error | null) => void): void;
  on(event: 'query' | 'response', listener: (packet: MdnsPacket) => void): unknown;
  removeListener(event: 'query' | 'response', listener: (packet: MdnsPacket) => void): unknown;
}

export type ProbeOutcome = 'free' | 'taken' | 'stopped';

export interface ProbeOptions {
  /** Ends the probe at once ('stopped'). */
  signal: AbortSignal;
  /** Hears a probe that could not be sent; the probe goes on (a socket that cannot send announces nothing either). */
  onSendError(err: Error): void;
  /** [0, 1): the random start delay that keeps hosts booted together from probing in step. */
  random?: () => number;
}

// RFC 6762 §8.1: three probes 250 ms apart after a random delay of up to 250 ms; a name no one claimed 250 ms after
// the third is ours. §8.2: the loser of a tie-break waits one second before probing again.
const PROBE_INTERVAL_MS = 250;
const PROBES = 3;
const TIE_BREAK_WAIT_MS = 1000;

/**
 * Probes for the names of `proposed` (the SRV and TXT records that would be announced): 'taken' as soon as anyone
 * answers with a record of one of those names, 'free' when no one did.
 */
export function probeNames(mdns: MdnsSocket, proposed: readonly MdnsRecord[], options: ProbeOptions): Promise<ProbeOutcome> {
  const names = proposed.map((r) => r.name).filter((n, i, all) => all.findIndex((m) => sameDnsName(m, n)) === i);
  const ours = (name: string): boolean => names.some((n) => sameDnsName(n, name));
  return new Promise((resolve) => {
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = (outcome: ProbeOutcome): void => {
      clearTimeout(timer);
      mdns.removeListener('response', onResponse);
      mdns.removeListener('query', onQuery);
      options.signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = (): void => finish('stopped');
    const onResponse = (packet: MdnsPacket): void => {
      // Nothing of ours is announced yet, so any answer with one of these names is someone else's; but a goodbye
      // (TTL 0) gives the name up: another host that withdrew it to probe again must not push us on to the next one.
      const records = [...(packet.answers ?? []), ...(packet.additionals ?? [])];
      if (records.some((r) => r.ttl !== 0 && ours(r.name))) finish('taken');
    };
    const onQuery = (packet: MdnsPacket): void => {
      // A probe carries its proposed records in the authority section; a plain question carries none.
      for (const name of names) {
        const theirs = (packet.authorities ?? []).filter((r) => sameDnsName(r.name, name));
        if (theirs.length === 0) continue;
        if (losesTieBreak(proposed.filter((r) => sameDnsName(r.name, name)), theirs)) {
          sent = 0;
          clearTimeout(timer);
          timer = setTimeout(send, TIE_BREAK_WAIT_MS);
          return;
        }
      }
    };
    const send = (): void => {
      if (sent === PROBES) return finish('free');
      sent += 1;
      mdns.query({ questions: names.map((name) => ({ name, type: 'ANY' })), authorities: [...proposed] }, (err) => {
        if (err) options.onSendError(err);
      });
      timer = setTimeout(send, PROBE_INTERVAL_MS);
    };
    if (options.signal.aborted) return finish('stopped');
    options.signal.addEventListener('abort', onAbort);
    mdns.on('response', onResponse);
    mdns.on('query', onQuery);
    timer = setTimeout(send, (options.random ?? Math.random)() * PROBE_INTERVAL_MS);
  });
}
