// Child process of long-uptime.test.ts: streams 10,000 framed lines through a virtual printer whose clock starts at
// a simulated uptime of 30 days; prints `done <oks>` on success. Run alone so that a hang can be killed from outside.
import { ManualScheduler } from '../../src/simulator/sim-scheduler.js';
import { parseSimulatorOptions } from '../../src/simulator/simulator-options.js';
import { VirtualPrinter } from '../../src/simulator/virtual-printer.js';
import { frame } from './sim-harness.js';

const DAY_MS = 86_400_000;
const LINES = 10_000;
const baud = process.argv[2] ?? '115200';
// A fraction on top of the days, so no byte time lines up with a round number by luck.
const clock = new ManualScheduler(30 * DAY_MS + 0.123456);
const start = clock.now();
const printer = new VirtualPrinter(parseSimulatorOptions({ baud, record: '0' }), { scheduler: clock });
let oks = 0;
let pending = '';
printer.onOutput((bytes) => {
  pending += bytes.toString('latin1');
  const parts = pending.split('\n');
  pending = parts.pop() ?? '';
  for (const l of parts) if (l.startsWith('ok')) oks++;
});
clock.advance(3000);
printer.hostWrite(frame(0, 'M110 N0'));
clock.advanceUntil(() => oks >= 1, 10_000, 0.05);
let sent = 0;
// Like a host: keep four lines in flight, step the clock in 50 µs slices (finer than one byte at 115200 baud).
while (oks < LINES + 1) {
  while (sent < LINES && sent - (oks - 1) < 4) {
    sent++;
    printer.hostWrite(frame(sent, `G1 X${sent % 100} Y${sent % 7} F60000`));
  }
  clock.advance(0.05);
  if (clock.now() - start > 3_600_000) throw new Error(`only ${oks - 1} of ${LINES} lines acknowledged in a simulated hour`);
}
printer.close();
process.stdout.write(`done ${oks - 1} checksum_errors=${printer.stats.checksumErrors}\n`);
