// Two appliances with one name on one network (RFC 6762 §8-9), on the loopback interface with real multicast sockets:
// the later one probes, finds the name taken and announces "NAME (2)"; one log line, no stack trace; a restart of the
// first takes its own name back and the second keeps its; two started together, or two that announced one name without
// hearing each other, still end with two names.
import { after, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { announceOverMdns, type MdnsAnnouncement, type MdnsAnnouncer } from '../../src/transport/mdns-announcer.js';
import type { MdnsServiceRecord } from '../../src/transport/mdns-browser.js';
import { browseUntil, freeUdpPort, LOOPBACK, prepareLoopbackMdns } from '../helpers/loopback-mdns.js';
import { recordingLogger } from '../helpers/recording-logger.js';

const loopback = await prepareLoopbackMdns();
after(() => loopback.restore());

const NAME = 'printfarm on testbox';
const TYPES = ['http', 'printfarm'];

function services(port: number): MdnsAnnouncement[] {
  return TYPES.map((type) => ({ type, name: NAME, port, txt: { version: '1.2.3', path: '/' } }));
}

/** "name → port" for every type, sorted: what a browser on the network sees. */
function seen(found: MdnsServiceRecord[]): string[] {
  return found.map((s) => `${s.type}: ${s.name} → ${s.port}`).sort();
}

/** Browses until exactly `want` answers (see browseUntil), and hands back what did. */
async function browseFor(port: number, want: string[]): Promise<string[]> {
  return seen(await browseUntil(port, TYPES, (found) => JSON.stringify(seen(found)) === JSON.stringify(want)));
}

const both = (first: string, second: string): string[] =>
  TYPES.flatMap((type) => [`${type}: ${NAME} → ${first}`, `${type}: ${NAME} (2) → ${second}`]).sort();

/** Fails the test if anything (the mDNS library's `console.log(new Error(...))`, say) reaches the console. */
function quietConsole(t: TestContext): () => void {
  const calls = (['log', 'info', 'warn', 'error'] as const).map((m) => t.mock.method(console, m, () => {}));
  return () =>
    assert.deepEqual(
      calls.flatMap((c) => c.mock.calls.map((call) => call.arguments.map(String).join(' '))),
      [],
      'nothing on the console',
    );
}

describe('two announcers of one name on one network', { skip: loopback.skip ?? false }, () => {
  const running: MdnsAnnouncer[] = [];
  after(() => Promise.all(running.map((a) => a.stop())));
  function announce(port: number, servicePort: number, more: { random?: () => number; probe?: boolean } = {}) {
    const logger = recordingLogger();
    const announcer = announceOverMdns(services(servicePort), { interface: LOOPBACK, port, logger, ...more });
    running.push(announcer);
    return { announcer, logger };
  }

  it('the second probes, finds the name taken and announces "NAME (2)"; a browser sees both; one log line, no stack trace', async (t) => {
    const consoleStaysQuiet = quietConsole(t);
    const port = await freeUdpPort();
    const first = announce(port, 1111);
    assert.deepEqual(await browseFor(port, TYPES.map((type) => `${type}: ${NAME} → 1111`)), TYPES.map((type) => `${type}: ${NAME} → 1111`));
    const second = announce(port, 2222);
    assert.deepEqual(await browseFor(port, both('1111', '2222')), both('1111', '2222'));

    assert.deepEqual(first.logger.lines, [], 'the first had its name: nothing to say');
    assert.equal(second.logger.lines.length, 1, JSON.stringify(second.logger.lines));
    const [line] = second.logger.lines;
    assert.equal(line!.level, 'info');
    assert.deepEqual(line!.fields, { name: NAME, announced_as: `${NAME} (2)` });
    assert.doesNotMatch(line!.msg, /\n|Error/);
    assert.equal(first.announcer.error(), null);
    assert.equal(second.announcer.error(), null);
    consoleStaysQuiet();

    // The first restarts (goodbye, then a fresh start): it probes its own name, finds it free and takes it back; the
    // second is not disturbed and keeps "(2)", saying nothing more.
    await first.announcer.stop();
    const again = announce(port, 3333);
    assert.deepEqual(await browseFor(port, both('3333', '2222')), both('3333', '2222'));
    assert.deepEqual(again.logger.lines, []);
    assert.equal(second.logger.lines.length, 1);
    consoleStaysQuiet();
    await Promise.all([second.announcer.stop(), again.announcer.stop()]);
  });

  it('two started at the same moment still end with two names: the simultaneous probes are broken by RFC 6762 §8.2', async (t) => {
    const consoleStaysQuiet = quietConsole(t);
    const port = await freeUdpPort();
    // No random delay: both probe in step, so each one's probes all go out before the other could answer.
    const a = announce(port, 4444, { random: () => 0 });
    const b = announce(port, 5555, { random: () => 0 });
    // Neither is announced yet, so neither answers the other: each hears the other's probe instead, and the records
    // they propose decide (here the SRV records, by port: 5555 sorts later and keeps the name).
    assert.deepEqual(await browseFor(port, both('5555', '4444')), both('5555', '4444'));
    assert.equal(a.logger.lines.length, 1, JSON.stringify(a.logger.lines));
    assert.deepEqual(b.logger.lines, []);
    consoleStaysQuiet();
    await Promise.all([a.announcer.stop(), b.announcer.stop()]);
  });

  it('two that announce one name without having heard each other (no probes: a network joined later) find out and settle it (§9)', async (t) => {
    const consoleStaysQuiet = quietConsole(t);
    const port = await freeUdpPort();
    const a = announce(port, 6666, { probe: false });
    const b = announce(port, 7777, { probe: false });
    // Each hears the other's announcement, withdraws and probes again; the tie-break gives 7777 the name.
    assert.deepEqual(await browseFor(port, both('7777', '6666')), both('7777', '6666'));
    assert.equal(a.logger.lines.length, 1, JSON.stringify(a.logger.lines));
    assert.deepEqual(b.logger.lines, []);
    // Settled: the re-announcements that follow (1 s, 3 s after) change nothing.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    assert.deepEqual(await browseFor(port, both('7777', '6666')), both('7777', '6666'));
    assert.equal(a.logger.lines.length, 1);
    consoleStaysQuiet();
    await Promise.all([a.announcer.stop(), b.announcer.stop()]);
  });
});
