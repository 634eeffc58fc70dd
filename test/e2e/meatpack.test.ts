// MeatPack end to end over sim:// (and one socat pty): detection, enabling, packed lines, noise, fall-back, emergency commands.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EventBus } from '../../src/events/event-bus.js';
import type { PrinterSession } from '../../src/printers/printer-session.js';
import { createSimTransport, type SimTransport } from '../../src/transport/sim.transport.js';
import type { ConsoleEntry } from '../../src/printers/session-context.js';
import { writeGcode } from '../printers/gcode-fixture.js';
import { createPtyPair, hasSocat } from '../helpers/socat-pty.js';
import { attachPrinter, checkRecord, newSession, within } from './e2e-harness.js';

interface Rig {
  session: PrinterSession;
  sim: () => SimTransport;
  /** Every write the session made, as bytes, in order. */
  writes: Buffer[];
  console: ConsoleEntry[];
  dir: string;
  close(): Promise<void>;
}

/** A session on a sim:// Marlin whose writes are recorded; `hideReports` drops the firmware's `[MP]` lines on the way back. */
async function rig(query: string, opts: { hideReports?: boolean } = {}): Promise<Rig> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-mp-'));
  const writes: Buffer[] = [];
  const entries: ConsoleEntry[] = [];
  let sim: SimTransport | null = null;
  const session = newSession(`sim://mp?record=1&${query}`, new EventBus(), {
    autoReconnect: false,
    createTransport: (u) => {
      const t = createSimTransport(new URL(u));
      sim = t;
      const write = t.write.bind(t);
      t.write = (d) => {
        writes.push(Buffer.from(typeof d === 'string' ? Buffer.from(d, 'latin1') : d));
        return write(d);
      };
      if (opts.hideReports) {
        const open = t.open.bind(t);
        t.open = (h) => open({ ...h, onLine: (l) => (l.startsWith('[MP]') ? undefined : h.onLine(l)) });
      }
      return t;
    },
  });
  session.onConsole((e) => entries.push(e));
  await within(session.connect(), 10_000, 'connect');
  return {
    session,
    sim: () => sim!,
    writes,
    console: entries,
    dir,
    close: async () => {
      await session.disconnect();
      sim?.printer.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function stream(r: Rig, moves: number, limitMs: number) {
  const file = path.join(r.dir, 'part.gcode');
  const fx = await writeGcode(file, moves);
  const base = r.sim().printer.executedJobLines().length;
  const job = await r.session.startJob({ jobId: 'job_mp', filePath: file });
  const outcome = await within(job.finished, limitMs, 'the job').catch((err: Error) => {
    throw new Error(`${err.message}; host ${JSON.stringify(r.session.stats())}; printer ${JSON.stringify(r.sim().printer.stats)}`);
  });
  return { outcome, check: checkRecord(r.sim().printer.executedJobLines().slice(base), [...fx.stripped, 'M400']), fx };
}

const hex = (b: Buffer): string => b.toString('hex');
const infos = (r: Rig): string[] => r.console.filter((e) => e.kind === 'info').map((e) => e.text);

test('transcript: Cap:MEATPACK:1 in M115, the query answered by [MP], packing and no-spaces enabled, then lines go packed', async () => {
  const r = await rig('baud=0&speed=max');
  try {
    const text = r.writes.map((w) => w.toString('latin1'));
    const m115 = text.findIndex((t) => /M115/.test(t));
    assert.ok(m115 >= 0);
    // Right after the handshake: the query alone, then enable packing + enable no-spaces, as raw signal bytes.
    const after = r.writes.slice(m115 + 1).map(hex);
    assert.deepEqual(after.slice(0, 2), ['fffff8', 'fffffbfffff7']);
    assert.deepEqual(infos(r).filter((t) => t.startsWith('[MP]') || t.startsWith('MeatPack')), [
      '[MP] PV01 OFF ESP',
      '[MP] PV01 ON ESP',
      '[MP] PV01 ON NSP',
      'MeatPack: packing on, spaces dropped',
    ]);
    assert.equal(r.session.meatpackActive, true);
    const before = r.writes.length;
    const { outcome, check } = await stream(r, 1500, 30_000);
    assert.deepEqual(outcome, { status: 'completed' });
    assert.ok(check.exact, check.describe());
    // Packed on the wire: no job write is readable text, and the firmware got about half the framed bytes.
    const jobWrites = r.writes.slice(before);
    assert.ok(jobWrites.every((w) => !/N\d+ G1 X/.test(w.toString('latin1'))));
    const st = r.sim().printer.stats;
    assert.equal(st.checksumErrors, 0);
    const host = r.session.stats()!;
    assert.ok(st.bytesReceived < 0.6 * host.linesSent * 36, `${st.bytesReceived} wire bytes for ${host.linesSent} lines`);
  } finally {
    await r.close();
  }
});

test('a Marlin built without MeatPack (meatpack=0): Cap:MEATPACK:0, no signal byte is ever written, lines go as text', async () => {
  const r = await rig('baud=0&speed=max&meatpack=0');
  try {
    assert.equal(r.session.snapshot().firmware?.capabilities['MEATPACK'], false);
    const { outcome, check } = await stream(r, 300, 20_000);
    assert.deepEqual(outcome, { status: 'completed' });
    assert.ok(check.exact, check.describe());
    assert.equal(r.session.meatpackActive, false);
    assert.ok(r.writes.every((w) => !w.includes(0xff)), 'no 0xFF byte written');
  } finally {
    await r.close();
  }
});

test('Cap:MEATPACK:1 but no [MP] answer to the query: text, and nothing enabled', async () => {
  const r = await rig('baud=0&speed=max', { hideReports: true });
  try {
    assert.ok(infos(r).includes('MeatPack: no [MP] answer to the query, streaming as text'), infos(r).join('\n'));
    assert.equal(r.session.meatpackActive, false);
    assert.ok(!r.writes.some((w) => w.includes(Buffer.from([0xff, 0xff, 0xfb]))), 'packing never enabled');
    const { outcome, check } = await stream(r, 200, 20_000);
    assert.deepEqual(outcome, { status: 'completed' });
    assert.ok(check.exact, check.describe());
  } finally {
    await r.close();
  }
});

test('exactly once under noise with MeatPack on: wire errors and corrupted packed bytes are caught by the checksum and resent', async () => {
  const r = await rig('baud=0&speed=max&error_rate=0.0005&packed_error_rate=0.002&seed=11');
  try {
    assert.equal(r.session.meatpackActive, true);
    const { outcome, check } = await stream(r, 3000, 60_000);
    assert.deepEqual(outcome, { status: 'completed' });
    assert.ok(check.exact, check.describe());
    const st = r.sim().printer.stats;
    assert.ok(st.packedBytesCorrupted > 20, `packed bytes corrupted: ${st.packedBytesCorrupted}`);
    assert.ok(st.checksumErrors > 10, `checksum errors: ${st.checksumErrors}`);
  } finally {
    await r.close();
  }
});

test('the printer reports packing off mid-print (its state was lost): the host goes on in text, exactly', async () => {
  const r = await rig('baud=0&speed=max');
  try {
    const file = path.join(r.dir, 'part.gcode');
    const fx = await writeGcode(file, 2000);
    const base = r.sim().printer.executedJobLines().length;
    const job = await r.session.startJob({ jobId: 'job_off', filePath: file });
    await new Promise<void>((resolve) => {
      const t = setInterval(() => {
        if (r.sim().printer.executedJobLines().length - base < 300) return;
        clearInterval(t);
        // MeatPack's reset command reaches the firmware as if from nowhere: packing off, reported as such.
        r.sim().printer.hostWrite(Buffer.from([0xff, 0xff, 0xf9]));
        resolve();
      }, 5);
    });
    const outcome = await within(job.finished, 30_000, 'the job');
    assert.deepEqual(outcome, { status: 'completed' });
    const check = checkRecord(r.sim().printer.executedJobLines().slice(base), [...fx.stripped, 'M400']);
    assert.ok(check.exact, check.describe());
    assert.equal(r.session.meatpackActive, false);
    assert.ok(infos(r).some((t) => t === 'MeatPack: the printer reports packing off; streaming as text from here'), infos(r).join('\n'));
  } finally {
    await r.close();
  }
});

test('emergency commands while packing: M108 breaks a heat-up as the bytes arrive and leaves no garbage; M112 halts', async () => {
  const r = await rig('speed=1');
  try {
    assert.equal(r.session.meatpackActive, true);
    const file = path.join(r.dir, 'heat.gcode');
    await writeFile(file, ['M190 S60', 'G1 X10 Y10 F6000', 'G1 X20 Y10 E1 F1200', ''].join('\n'));
    const base = r.sim().printer.executed.length;
    await r.session.startJob({ jobId: 'job_heat', filePath: file });
    const t0 = Date.now();
    while (r.sim().printer.temperatures().bedTarget !== 60) {
      if (Date.now() - t0 > 20_000) throw new Error('the heat-up never started');
      await new Promise((res) => setTimeout(res, 10));
    }
    // The pause breaks the wait with M108: written as text between "packing off" and "packing on".
    await within(r.session.pause(), 20_000, 'the pause inside M190');
    const m108 = r.writes.find((w) => w.toString('latin1').includes('M108'))!;
    assert.match(hex(m108), /^fffffa0a4e[0-9a-f]+204d3130382a[0-9a-f]+0afffffb$/, 'disable, newline, "N.. M108*..", enable');
    const ran = r.sim().printer.executed.slice(base).filter((c) => !/^(M105|M155|M110)/.test(c));
    assert.deepEqual(ran.slice(0, 3), ['M190 S60', 'M108', 'M400'], 'the wait broken, nothing behind it ran, no stray command');
    assert.ok(!r.console.some((e) => e.kind === 'warning'), 'no unknown-command warning from garbage');
    assert.equal(r.sim().printer.temperatures().bedTarget, 60, 'the target stays while paused');

    r.session.emergencyStop();
    const deadline = Date.now() + 5000;
    while (!r.sim().printer.isHalted && Date.now() < deadline) await new Promise((res) => setTimeout(res, 10));
    assert.ok(r.sim().printer.isHalted, 'M112 reached the emergency parser');
    assert.match(hex(r.writes.at(-1)!), /^fffffa0a4d3131320afffffb$/, r.console.map((e) => e.text).join('\n'));
  } finally {
    await r.close();
  }
});

describe('through a socat pty pair', { skip: hasSocat() ? false : 'socat is not installed' }, () => {
  /** A file streamed to a virtual Marlin on the device end of a pty: the record must equal the file. */
  async function overPty(query: string, moves: number) {
    const pair = await createPtyPair();
    const dir = await mkdtemp(path.join(tmpdir(), 'pf-mp-pty-'));
    const sim = await attachPrinter(pair.devicePath, query);
    const session = newSession(`serial://${pair.hostPath}?baud=250000`, new EventBus(), { autoReconnect: false });
    const tail: string[] = [];
    session.onConsole((e) => e.kind !== 'command' && tail.push(e.text));
    try {
      await within(session.connect(), 15_000, 'connect over the pty');
      assert.equal(session.meatpackActive, true);
      const file = path.join(dir, 'part.gcode');
      const fx = await writeGcode(file, moves);
      const base = sim.printer.executedJobLines().length;
      const job = await session.startJob({ jobId: 'job_mp_pty', filePath: file });
      const outcome = await within(job.finished, 60_000, 'the job over the pty').catch((err: Error) => {
        throw new Error(`${err.message}; host ${JSON.stringify(session.stats())}; printer ${JSON.stringify(sim.printer.stats)}; packing ${session.meatpackActive}; snap ${JSON.stringify(session.snapshot())}; console ${tail.slice(-25).join(' / ')}`);
      });
      const check = checkRecord(sim.printer.executedJobLines().slice(base), [...fx.stripped, 'M400']);
      return { outcome, check, host: session.stats()!, printer: { ...sim.printer.stats }, packing: session.meatpackActive, console: tail };
    } finally {
      await session.disconnect();
      await sim.close();
      await pair.close();
      await rm(dir, { recursive: true, force: true });
    }
  }

  test('MeatPack on over a real tty: packed, exactly once', async () => {
    const r = await overPty('baud=250000&speed=max', 3000);
    assert.deepEqual(r.outcome, { status: 'completed' });
    assert.ok(r.check.exact, r.check.describe());
    assert.ok(r.printer.bytesReceived < 0.6 * r.host.linesSent * 36);
  });

  test('MeatPack over a noisy tty (wire errors and corrupted packed bytes): completes, every line once, still packing', async (t) => {
    const r = await overPty('baud=250000&speed=max&error_rate=0.0005&packed_error_rate=0.002&seed=7', 3000);
    t.diagnostic(`resends ${r.host.resends}, lines resent ${r.host.linesResent}, timeouts ${r.host.timeouts}, packed bytes corrupted ${r.printer.packedBytesCorrupted}, ${r.check.describe()}`);
    assert.deepEqual(r.outcome, { status: 'completed' }, r.console.slice(-20).join('\n'));
    // No line missing, twice, out of order or visibly damaged; damage no XOR checksum can see is counted (checkRecord).
    assert.equal(r.check.firstBadIndex, -1, r.check.describe());
    assert.ok(r.printer.packedBytesCorrupted > 10 && r.printer.checksumErrors > 10, JSON.stringify(r.printer));
    // One damaged line draws a resend request per line in flight: that is no reason to stop packing.
    assert.equal(r.packing, true, r.console.filter((l) => l.startsWith('MeatPack')).join('\n'));
    assert.equal(r.host.timeouts, 0, 'no stall waiting for an ok');
  });
});

describe('a board a host left packing', { skip: hasSocat() ? false : 'socat is not installed' }, () => {
  // Our process killed mid-print leaves the firmware in packed mode (only a reset turns it off): the next host's plain
  // M115 then reads as packed bytes and draws no answer. Real Marlin with MeatPack did this to our restart in the peer
  // tier. The handshake's retry tells the firmware to read text again first.
  test('the next session turns packing off and identifies the printer', async () => {
    const pair = await createPtyPair();
    const sim = await attachPrinter(pair.devicePath, 'baud=250000&speed=max');
    try {
      const first = newSession(`serial://${pair.hostPath}?baud=250000`, new EventBus(), { autoReconnect: false });
      await within(first.connect(), 15_000, 'the first connect');
      assert.equal(first.meatpackActive, true);
      // Gone without a word to the firmware, as a SIGKILL leaves it: the transport just closes.
      await first.disconnect();
      const second = newSession(`serial://${pair.hostPath}?baud=250000`, new EventBus(), { autoReconnect: false, handshakeTimeoutMs: 1500 });
      try {
        await within(second.connect(), 20_000, 'the second connect');
        assert.equal(second.snapshot().status, 'idle');
        assert.match(second.snapshot().firmware?.name ?? '', /Marlin/);
      } finally {
        await second.disconnect();
      }
    } finally {
      await sim.close();
      await pair.close();
    }
  });
});
