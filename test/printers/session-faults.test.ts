// Printer session over the simulator: pause/resume, cancel, emergency stop, firmware halt, reset mid-print, unplug and hot-plug.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import type { AppError } from '../../src/errors.js';
import type { JobProgressPayload } from '../../src/events/event-types.js';
import { createSimTransport } from '../../src/transport/sim.transport.js';
import { writeGcode } from './gcode-fixture.js';
import { consoleEntries, openHarness, until } from './session-harness.js';

// A real baud rate keeps the job long enough (a few seconds) to act in the middle of it; motion takes no time.
const MID = 'speed=max&baud=115200';

test('pause parks after the queued lines, remembers position and temperatures; resume reheats, returns and finishes exactly', async () => {
  const h = await openHarness(`sim://pr1?record=1&${MID}`);
  try {
    await h.session.connect();
    const file = path.join(h.dir, 'p.gcode');
    const fx = await writeGcode(file, 1200, { heat: true });
    const base = h.sim.printer.executed.length;
    const job = await h.session.startJob({ jobId: 'job_p', filePath: file });
    await h.waitFor('job.progress', (p) => p.progress >= 20);
    await h.session.pause();
    assert.equal(h.session.snapshot().status, 'paused');
    await h.waitFor('job.paused');
    const atPause = h.sim.printer.executed.slice(base);
    assert.deepEqual(atPause.slice(-6), ['M400', 'M83', 'G1 E-2 F2400', 'G91', 'G1 Z10 F600', 'G90']);
    assert.equal(atPause[0], 'M110 N0', 'the job starts its own line numbering');
    const streamed = atPause.slice(1, -6).filter((c) => !/^(M105|M155)/.test(c));
    assert.deepEqual(streamed, fx.stripped.slice(0, streamed.length), 'nothing skipped before the pause');
    const last = (re: RegExp): string => {
      for (let i = streamed.length - 1; i >= 0; i--) {
        const m = re.exec(streamed[i]!);
        if (m) return m[1]!;
      }
      throw new Error(`nothing matches ${re}`);
    };
    const x = last(/^G1 X([\d.]+)/);
    const y = last(/^G1 X[\d.]+ Y([\d.]+)/);
    const z = last(/^G1 Z([\d.]+)/);
    const e = last(/^G1 .*E([\d.]+)/);
    const f = last(/^G1 .*F(\d+)/);
    // Printing time stands still while paused: a round trip to the printer later it has not moved.
    const pausedAt = h.session.snapshot().job!.elapsed_ms;
    await h.session.sendCommand('M105');
    assert.equal(h.session.snapshot().job!.elapsed_ms, pausedAt);
    assert.ok(pausedAt > 0);
    await assert.rejects(h.session.pause(), (err: AppError) => err.code === 'invalid_state');
    await assert.rejects(h.session.home(), (err: AppError) => err.code === 'printer_busy');

    await h.session.resume();
    await h.waitFor('job.resumed');
    const outcome = await job.finished;
    assert.deepEqual(outcome, { status: 'completed' });
    // Without the job-start M110 (checked above), so indexes line up with `streamed`.
    const all = h.sim.printer.executed.slice(base + 1).filter((c) => !/^(M105|M155)/.test(c));
    const resumeAt = streamed.length + 6;
    // The heaters held their targets through the short pause: set again, not waited for (a wait costs the residency).
    const resumeBlock = [
      'M140 S60',
      'M104 S200',
      'G90',
      `G1 X${Number(x)} Y${Number(y)} F6000`,
      `G1 Z${Number(z)} F600`,
      'M83',
      'G1 E2 F2400',
      `G92 E${Number(e)}`,
      `G1 F${Number(f)}`,
      'G90',
      'M82',
    ];
    assert.deepEqual(all.slice(resumeAt, resumeAt + resumeBlock.length), resumeBlock);
    // After the return: the remaining file lines, then the closing M400.
    const rest = all.slice(resumeAt + resumeBlock.length);
    assert.equal(rest.at(-1), 'M400');
    assert.deepEqual([...streamed, ...rest.slice(0, -1)], fx.stripped);
    assert.deepEqual(h.names(), ['printer.online', 'job.started', 'job.paused', 'job.resumed', 'job.completed']);
  } finally {
    await h.close();
  }
});

test('cancel drops the queue and runs the cancel script; job.cancelled; idle again', async () => {
  const h = await openHarness(`sim://ca1?record=1&${MID}`);
  try {
    await h.session.connect();
    const file = path.join(h.dir, 'c.gcode');
    const fx = await writeGcode(file, 3000);
    const job = await h.session.startJob({ jobId: 'job_c', filePath: file });
    await h.waitFor('job.progress', (p) => p.progress >= 10);
    await h.session.cancel();
    assert.deepEqual(await job.finished, { status: 'cancelled' });
    assert.equal(h.session.snapshot().status, 'idle');
    // The job ended once the script had no filament left to move; the printer finishes the lift and M84 on its own.
    await until(() => h.sim.printer.executed.includes('M84'));
    const ex = h.sim.printer.executed.filter((c) => !/^(M105|M155)/.test(c));
    assert.deepEqual(ex.slice(-7), ['G91', 'G1 Z10 F600', 'G90', 'M104 S0', 'M140 S0', 'M107', 'M84']);
    assert.ok(h.sim.printer.executedJobLines().length < fx.stripped.length, 'the rest of the file was not sent');
    await assert.rejects(h.session.cancel(), (e: AppError) => e.code === 'invalid_state');
    assert.deepEqual(h.names(), ['printer.online', 'job.started', 'job.cancelled']);
  } finally {
    await h.close();
  }
});

test('emergency stop halts the printer at once: job.failed, printer.error; a reconnect clears it', async () => {
  const h = await openHarness(`sim://es1?record=1&${MID}`);
  try {
    await h.session.connect();
    const file = path.join(h.dir, 'e.gcode');
    await writeGcode(file, 3000);
    const job = await h.session.startJob({ jobId: 'job_e', filePath: file });
    await h.waitFor('job.progress', (p) => p.progress >= 5);
    const halted = consoleEntries(h.session, (e) => e.kind === 'fatal' && /halted/i.test(e.text), 1);
    h.session.emergencyStop();
    const outcome = await job.finished;
    assert.equal(outcome.status === 'failed' && outcome.error.code, 'emergency_stop');
    assert.equal(h.session.snapshot().status, 'error');
    await h.waitFor('printer.error');
    await halted;
    assert.equal(h.sim.printer.isHalted, true);
    // The firmware's own halt line does not replace the reason, and a command is refused at once instead of
    // waiting forever for an ok from a halted board.
    assert.equal(h.session.snapshot().error?.code, 'emergency_stop');
    await assert.rejects(h.session.sendCommand('M105'), (e: AppError) => e.code === 'invalid_state' && /reconnect/.test(String(e.details)));
    await assert.rejects(h.session.startJob({ jobId: 'job_x', filePath: file }), (e: AppError) => e.code === 'invalid_state');
    await h.session.connect();
    assert.equal(h.session.snapshot().status, 'idle');
    assert.equal(h.session.snapshot().error, null);
    assert.equal((await h.session.sendCommand('M105')).ok, true);
    // reconnect() does the same from any state but a job: here from idle, and again after a second stop.
    h.session.emergencyStop();
    assert.equal(h.session.currentStatus, 'error');
    await h.session.reconnect();
    assert.equal(h.session.currentStatus, 'idle');
    assert.equal(h.sim.printer.isHalted, false);
    assert.equal((await h.session.sendCommand('M105')).ok, true);
  } finally {
    await h.close();
  }
});

test('a firmware halt (thermal runaway) mid-print: error state, printer.error with the text, job.failed', async () => {
  const h = await openHarness(`sim://rw1?record=1&speed=max&runaway_after_lines=300`);
  try {
    await h.session.connect();
    const file = path.join(h.dir, 'r.gcode');
    await writeGcode(file, 1000);
    const job = await h.session.startJob({ jobId: 'job_r', filePath: file });
    const outcome = await job.finished;
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.status === 'failed' && outcome.error.code, 'firmware_error');
    const err = await h.waitFor('printer.error');
    assert.match(err.reason ?? '', /runaway|halted/i);
    const snap = h.session.snapshot();
    assert.equal(snap.status, 'error');
    assert.equal(snap.error?.code, 'firmware_error');
    assert.equal(h.events.filter((e) => e.name === 'job.failed').length, 1);
    assert.equal(h.events.filter((e) => e.name === 'printer.error').length, 1);
  } finally {
    await h.close();
  }
});

test('a board reset mid-print fails the job with a clear reason, then the session identifies the board again', async () => {
  const h = await openHarness(`sim://rs1?record=1&speed=max&reset_after_lines=400`);
  try {
    await h.session.connect();
    const file = path.join(h.dir, 'rs.gcode');
    await writeGcode(file, 1000);
    const job = await h.session.startJob({ jobId: 'job_rs', filePath: file });
    const outcome = await job.finished;
    assert.equal(outcome.status === 'failed' && outcome.error.code, 'firmware_reset');
    assert.match(outcome.status === 'failed' ? outcome.error.message : '', /restarted/);
    const online = () => h.events.filter((e) => e.name === 'printer.online').length;
    for (let i = 0; i < 100 && (online() < 2 || h.session.snapshot().status !== 'idle'); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(h.session.snapshot().status, 'idle');
    assert.equal((await h.session.sendCommand('M105')).ok, true, 'line numbers restarted: commands work again');
  } finally {
    await h.close();
  }
});

test('a pulled cable: offline, job.failed (link_lost), then the printer is picked up again when it comes back', async () => {
  let opens = 0;
  const h = await openHarness(`sim://up1?record=1&speed=max&unplug_after_lines=300`, {
    createTransport: (u) => {
      opens++;
      // Attempts 2 and 3 find no device (still unplugged), the 4th finds it back: hot-plug with back-off.
      if (opens === 2 || opens === 3) {
        return {
          description: u,
          open: () => Promise.reject(new Error('no such device')),
          write: () => true,
          close: () => Promise.resolve(),
        };
      }
      const t = createSimTransport(new URL(u.replace('unplug_after_lines=300', 'unplug_after_lines=0')));
      if (opens === 1) {
        const first = createSimTransport(new URL(u));
        h.sims.push(first);
        return first;
      }
      h.sims.push(t);
      return t;
    },
  });
  try {
    await h.session.connect();
    const file = path.join(h.dir, 'u.gcode');
    await writeGcode(file, 1000);
    const job = await h.session.startJob({ jobId: 'job_u', filePath: file });
    const outcome = await job.finished;
    assert.equal(outcome.status === 'failed' && outcome.error.code, 'link_lost');
    const off = await h.waitFor('printer.offline');
    assert.match(off.reason ?? '', /cable was pulled/);
    await h.waitFor('printer.online', () => opens >= 4);
    assert.equal(opens, 4);
    assert.equal(h.session.snapshot().status, 'idle');
    const names = h.names();
    assert.deepEqual(names, ['printer.online', 'job.started', 'job.failed', 'printer.offline', 'printer.online']);
    assert.equal((await h.session.sendCommand('M105')).ok, true);
  } finally {
    await h.close();
  }
});

test('connect to a printer that never answers fails with a clear reason and no leftover timers', async () => {
  const h = await openHarness('sim://none?record=1&speed=max', {
    autoReconnect: false,
    handshakeTimeoutMs: 200,
    handshakeAttempts: 2,
    createTransport: (u) => ({
      description: u,
      open: async () => undefined,
      write: () => true,
      close: async () => undefined,
    }),
  });
  try {
    await assert.rejects(h.session.connect(), /no answer from the printer/);
    const snap = h.session.snapshot();
    assert.equal(snap.status, 'offline');
    assert.match(snap.error?.message ?? '', /M115 got no reply/);
  } finally {
    await h.close();
  }
});

test('progress events carry printer and job ids and never go back', async () => {
  const h = await openHarness(`sim://pg1?record=1&speed=max`);
  try {
    await h.session.connect();
    const file = path.join(h.dir, 'g.gcode');
    await writeGcode(file, 800);
    const job = await h.session.startJob({ jobId: 'job_g', filePath: file });
    await job.finished;
    const ps = h.events.filter((e) => e.name === 'job.progress').map((e) => e.payload as JobProgressPayload);
    assert.ok(ps.every((p) => p.printer_id === 'prt_test' && p.job_id === 'job_g'));
    for (let i = 1; i < ps.length; i++) {
      assert.ok(ps[i]!.progress >= ps[i - 1]!.progress && ps[i]!.bytes_acked >= ps[i - 1]!.bytes_acked);
    }
    assert.equal(ps.at(-1)!.progress, 100);
  } finally {
    await h.close();
  }
});

test('Klipper restarted from its own console: not idle until it says ready (it answers M115 before that, and refuses jobs)', async () => {
  // Real klippy after RESTART: `// Klipper state: Disconnect`, M115 answered at once, `!! Printer is not ready` for
  // everything else until `// Klipper state: Ready` seconds later; a job sent in between failed (peer tier).
  const h = await openHarness('sim://krestart?record=1&profile=klipper&speed=1');
  try {
    await h.session.connect();
    await h.session.sendCommand('RESTART');
    await until(() => h.session.snapshot().status !== 'idle', 5000);
    await until(() => h.session.snapshot().status === 'idle', 10_000);
    const file = path.join(h.dir, 'after-restart.gcode');
    await writeFile(file, 'G90\nG1 X10 Y10 F6000\nG1 X20 Y10 F6000\n');
    const job = await h.session.startJob({ jobId: 'job_after_restart', filePath: file });
    assert.deepEqual(await job.finished, { status: 'completed' });
  } finally {
    await h.close();
  }
});
