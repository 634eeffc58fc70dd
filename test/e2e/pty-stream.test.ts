// End to end through a real pseudo-terminal: serialport and our line parser on the host end, the virtual printer on the other.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EventBus } from '../../src/events/event-bus.js';
import { writeGcode } from '../printers/gcode-fixture.js';
import { createPtyPair, hasSocat } from '../helpers/socat-pty.js';
import { attachPrinter, checkRecord, EventLog, newSession, startSimulateProcess, until, within } from './e2e-harness.js';

const skip = hasSocat() ? false : 'socat is not installed (apt-get install socat)';

async function tempDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pf-e2e-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

describe('through a socat pty pair', { skip }, () => {
  test('a file streams exactly: the printer ran every stripped line once, in order, through the real tty', async () => {
    const pair = await createPtyPair();
    const tmp = await tempDir();
    // Real 250000-baud link timing in the model, motion instant. (Corrupted bytes are test/e2e/fault-injection's job.)
    const sim = await attachPrinter(pair.devicePath, 'baud=250000&speed=max');
    const bus = new EventBus();
    const log = new EventLog(bus);
    const session = newSession(`serial://${pair.hostPath}?baud=250000`, bus, { autoReconnect: false });
    try {
      await within(session.connect(), 15_000, 'connect over the pty');
      assert.equal(session.snapshot().firmware?.profile, 'marlin');
      const file = path.join(tmp.dir, 'part.gcode');
      const fx = await writeGcode(file, 4000);
      const base = sim.printer.executedJobLines().length;
      const job = await session.startJob({ jobId: 'job_pty', filePath: file });
      const outcome = await within(job.finished, 40_000, 'the job over the pty').catch((err: Error) => {
        throw new Error(`${err.message}; host ${JSON.stringify(session.stats())}; printer ${JSON.stringify(sim.printer.stats)}`);
      });
      assert.deepEqual(outcome, { status: 'completed' });
      const ran = sim.printer.executedJobLines().slice(base);
      const check = checkRecord(ran, [...fx.stripped, 'M400']);
      assert.ok(check.exact, check.describe());
      assert.deepEqual(log.names(), ['printer.online', 'job.started', 'job.completed']);
      assert.equal(session.snapshot().status, 'idle');
    } finally {
      await session.disconnect();
      await sim.close();
      await pair.close();
      await tmp.remove();
    }
  });

  test('unplug: `printfarm simulate` goes away mid-print -> offline, printer.offline, job.failed; it comes back -> online again', async () => {
    const tmp = await tempDir();
    const ptyPath = path.join(tmp.dir, 'printer0');
    let sim = await startSimulateProcess(ptyPath, ['--baud', '250000', '--speed', 'max']);
    const bus = new EventBus();
    const log = new EventLog(bus);
    const session = newSession(`serial://${ptyPath}?baud=250000`, bus);
    try {
      await within(session.connect(), 15_000, 'connect to printfarm simulate');
      const file = path.join(tmp.dir, 'long.gcode');
      await writeGcode(file, 30_000);
      const job = await session.startJob({ jobId: 'job_unplug', filePath: file });
      await log.waitFor('job.progress', 20_000, 1, (p) => p.lines_acked >= 300);
      await sim.stop(); // socat and the simulator exit: the tty vanishes under the open port
      const outcome = await within(job.finished, 10_000, 'job end after the unplug');
      assert.equal(outcome.status, 'failed');
      assert.equal(outcome.status === 'failed' && outcome.error.code, 'link_lost');
      const offline = await log.waitFor('printer.offline', 10_000);
      assert.match(offline.reason ?? '', /link lost|disconnected|closed/i);
      const failed = await log.waitFor('job.failed', 1000);
      assert.equal(failed.error?.code, 'link_lost');
      // The back-off may already have tried once and found no device: either reason is clear.
      assert.equal(session.snapshot().status, 'offline');
      assert.match(session.snapshot().error?.code ?? '', /^(link_lost|connect_failed)$/);

      // Hot-plug: the device node reappears at the same path; the session's back-off finds it.
      sim = await startSimulateProcess(ptyPath, ['--baud', '250000', '--speed', 'max']);
      await log.waitFor('printer.online', 20_000, 2);
      await until(() => session.snapshot().status === 'idle', 5000, 'idle after the replug');
      assert.equal((await within(session.sendCommand('M105'), 10_000, 'M105 after the replug')).ok, true);
      assert.deepEqual(log.names(), ['printer.online', 'job.started', 'job.failed', 'printer.offline', 'printer.online']);
    } finally {
      await session.disconnect();
      await sim.stop();
      await tmp.remove();
    }
  });

  test('emergency stop on `printfarm simulate`: the board halts; reconnect reopens the port, which resets it, and it is idle again', async () => {
    const tmp = await tempDir();
    const ptyPath = path.join(tmp.dir, 'printer0');
    const sim = await startSimulateProcess(ptyPath, ['--baud', '250000', '--speed', 'max']);
    const bus = new EventBus();
    const log = new EventLog(bus);
    const session = newSession(`serial://${ptyPath}?baud=250000`, bus, { autoReconnect: false });
    try {
      await within(session.connect(), 15_000, 'connect to printfarm simulate');
      session.emergencyStop();
      assert.equal(session.snapshot().status, 'error');
      assert.equal(session.snapshot().error?.code, 'emergency_stop');
      await within(session.reconnect(), 15_000, 'reconnect after the emergency stop');
      assert.equal(session.snapshot().status, 'idle');
      const reply = await within(session.sendCommand('M105'), 10_000, 'M105 after the reconnect');
      assert.equal(reply.ok, true);
      assert.match(reply.lines.join('\n'), /T:[\d.]+ \/0\.0/);
      assert.deepEqual(log.names(), ['printer.online', 'printer.error', 'printer.online']);
    } finally {
      await session.disconnect();
      await sim.stop();
      await tmp.remove();
    }
  });

  test('reset mid-print: job.failed (firmware_reset) with a clear reason, then the board is identified again and idle', async () => {
    const pair = await createPtyPair();
    const tmp = await tempDir();
    const sim = await attachPrinter(pair.devicePath, 'baud=250000&speed=max&reset_after_lines=600');
    const bus = new EventBus();
    const log = new EventLog(bus);
    const session = newSession(`serial://${pair.hostPath}?baud=250000`, bus, { autoReconnect: false });
    try {
      await within(session.connect(), 15_000, 'connect');
      const file = path.join(tmp.dir, 'r.gcode');
      await writeGcode(file, 3000);
      const job = await session.startJob({ jobId: 'job_reset', filePath: file });
      const outcome = await within(job.finished, 20_000, 'job end after the reset');
      assert.equal(outcome.status === 'failed' && outcome.error.code, 'firmware_reset');
      assert.match(outcome.status === 'failed' ? outcome.error.message : '', /restarted/);
      await log.waitFor('printer.online', 15_000, 2);
      await until(() => session.snapshot().status === 'idle', 5000, 'idle after the re-handshake');
      assert.equal((await within(session.sendCommand('M105'), 10_000, 'M105 after the reset')).ok, true);
      assert.deepEqual(log.names(), ['printer.online', 'job.started', 'job.failed', 'printer.online']);
      assert.equal(sim.printer.executedJobLines().filter((c) => c.startsWith('G1 X')).length < 3000, true);
    } finally {
      await session.disconnect();
      await sim.close();
      await pair.close();
      await tmp.remove();
    }
  });

  test('thermal runaway mid-print: error state, printer.error naming it, job.failed (firmware_error), and nothing more sent', async () => {
    const pair = await createPtyPair();
    const tmp = await tempDir();
    const sim = await attachPrinter(pair.devicePath, 'baud=250000&speed=max&runaway_after_lines=500');
    const bus = new EventBus();
    const log = new EventLog(bus);
    const session = newSession(`serial://${pair.hostPath}?baud=250000`, bus, { autoReconnect: false });
    try {
      await within(session.connect(), 15_000, 'connect');
      const file = path.join(tmp.dir, 't.gcode');
      await writeGcode(file, 3000);
      const job = await session.startJob({ jobId: 'job_runaway', filePath: file });
      const outcome = await within(job.finished, 20_000, 'job end after the runaway');
      assert.equal(outcome.status === 'failed' && outcome.error.code, 'firmware_error');
      const err = await log.waitFor('printer.error', 5000);
      assert.match(err.reason ?? '', /runaway|halted/i);
      const snap = session.snapshot();
      assert.equal(snap.status, 'error');
      assert.equal(snap.error?.code, 'firmware_error');
      assert.equal(sim.printer.isHalted, true);
      await assert.rejects(session.startJob({ jobId: 'job_x', filePath: file }), /error/);
      assert.deepEqual(log.names(), ['printer.online', 'job.started', 'job.failed', 'printer.error']);
    } finally {
      await session.disconnect();
      await sim.close();
      await pair.close();
      await tmp.remove();
    }
  });

  test('a printer that talks garbage and NULs while it boots still connects and takes commands', async () => {
    const pair = await createPtyPair();
    // The board is powered when the host opens: noise first, then a slow boot with more noise before its banner.
    const sim = await attachPrinter(pair.devicePath, 'baud=250000&speed=1&instant=1&boot_ms=400&boot_noise=1', { start: false });
    const bus = new EventBus();
    const log = new EventLog(bus);
    const session = newSession(`serial://${pair.hostPath}?baud=250000`, bus, { autoReconnect: false });
    try {
      sim.port.write(Buffer.from('\0\0\xff\xfe garbage \0 no newline yet', 'latin1'));
      sim.port.write(Buffer.from('\r\n\0\0echo:junk\x01\x02\n\xff\xff\xff\n', 'latin1'));
      sim.printer.start();
      await within(session.connect(), 15_000, 'connect through the noise');
      assert.match(session.snapshot().firmware?.name ?? '', /Marlin/);
      assert.equal((await log.waitFor('printer.online', 1000)).firmware?.match(/Marlin/) !== null, true);
      const reply = await within(session.sendCommand('M105'), 10_000, 'M105 after the noisy boot');
      assert.equal(reply.ok, true);
      assert.match(reply.lines.join('\n'), /T:/);
    } finally {
      await session.disconnect();
      await sim.close();
      await pair.close();
    }
  });
});
