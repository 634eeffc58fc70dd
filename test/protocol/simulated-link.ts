// Drives the protocol core against a virtual printer on a manual clock: a whole job through a modelled link in simulated time.
import { HostProtocol } from '../../src/protocol/host-protocol.js';
import type { ProtocolStats } from '../../src/protocol/protocol-types.js';
import { profileByName } from '../../src/printers/firmware-profiles.js';
import { ManualScheduler } from '../../src/simulator/sim-scheduler.js';
import { parseSimulatorOptions } from '../../src/simulator/simulator-options.js';
import { VirtualPrinter } from '../../src/simulator/virtual-printer.js';

export interface LinkRun {
  /** `completed`, or `failed: <code>` with the protocol's failure. */
  outcome: string;
  message: string;
  jobLinesAcked: number;
  /** What the printer ran of the job, in order (its full record, housekeeping left out). */
  executed: string[];
  host: ProtocolStats;
  simulatedMs: number;
  /** The last lines on the wire (`> ` written, `< ` received) up to the end or the first ok-timeout, for a failure message. */
  tail: string[];
}

const TAIL_LINES = 60;

/**
 * Streams `lines` as one job to a simulated printer built from `simQuery` (sim:// options; its full command record is
 * always kept, as the result is read from it). Time moves only here: 0.1 ms a step while bytes move, whole
 * milliseconds while the link is quiet, so ok-timeouts cost nothing but steps. Stops at `maxSimulatedMs`.
 */
export function streamOverSimulatedLink(lines: readonly string[], simQuery: string, opts: { profile?: string; maxSimulatedMs?: number } = {}): LinkRun {
  const clock = new ManualScheduler();
  const params = Object.fromEntries(new URLSearchParams(simQuery));
  const printer = new VirtualPrinter(parseSimulatorOptions({ ...params, record: '1' }), { scheduler: clock });
  const proto = new HostProtocol({ profile: profileByName(opts.profile ?? 'marlin') });
  let pending = '';
  let traffic = false;
  const tail: string[] = [];
  let tailFrozen = false;
  const note = (line: string): void => {
    if (tailFrozen) return;
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
  };
  printer.onOutput((bytes) => {
    traffic = true;
    pending += bytes.toString('latin1');
    let nl = pending.indexOf('\n');
    while (nl >= 0) {
      const line = pending.slice(0, nl).replace(/\r$/, '');
      note(`< ${line}`);
      proto.lineReceived(line, clock.now());
      pending = pending.slice(nl + 1);
      nl = pending.indexOf('\n');
    }
  });
  printer.onDrain(() => proto.setWritable(true, clock.now()));

  const maxMs = opts.maxSimulatedMs ?? 3_600_000;
  let acked = 0;
  let outcome = '';
  let message = '';
  // The handshake first, as a session does: numbering restarted, the firmware's first ok seen.
  proto.resetLineNumbers(clock.now());
  let queued = false;
  while (outcome === '' && clock.now() < maxMs) {
    for (const a of proto.takeActions()) {
      if (a.type === 'write') {
        traffic = true;
        for (const l of a.data.split('\n').slice(0, -1)) note(`> ${l}`);
        if (!printer.hostWrite(Buffer.from(a.data, 'latin1'))) proto.setWritable(false, clock.now());
      } else if (a.type === 'job-acked') acked++;
      else if (a.type === 'protocol-failure') {
        outcome = `failed: ${a.code}`;
        message = a.message;
      }
    }
    if (!queued && proto.isIdle()) {
      for (const l of lines) proto.pushJobLine(l, l.length + 1, clock.now());
      queued = true;
      continue;
    }
    if (queued && acked === lines.length && proto.isIdle()) outcome = 'completed';
    if (outcome !== '') break;
    clock.advance(traffic ? 0.1 : 1);
    traffic = false;
    const timeouts = proto.stats.timeouts;
    proto.tick(clock.now());
    if (proto.stats.timeouts > timeouts) tailFrozen = true;
  }
  const executed = printer.executedJobLines();
  printer.close();
  return {
    outcome: outcome === '' ? `unfinished after ${maxMs} simulated ms` : outcome,
    message,
    jobLinesAcked: acked,
    executed,
    host: { ...proto.stats },
    simulatedMs: clock.now(),
    tail,
  };
}
