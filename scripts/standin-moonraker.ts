// Runs the Moonraker stand-in for manual tries: `npx tsx scripts/standin-moonraker.ts [PORT] [API_KEY]` (port 7125 by
// default, no key = every client trusted). Type a fault name (e.g. `klipper_shutdown`) to switch it on, `-name` off.
import { createInterface } from 'node:readline';
import { MOONRAKER_FAULTS, startMoonrakerStandIn, type MoonrakerFault } from '../src/simulator/moonraker/moonraker-standin.js';

const port = Number(process.argv[2] ?? 7125);
const apiKey = process.argv[3] ?? null;
const standIn = await startMoonrakerStandIn({ port, apiKey });
process.stdout.write(`Moonraker stand-in at ${standIn.url}${apiKey ? ' (X-Api-Key required)' : ''}\nfaults: ${MOONRAKER_FAULTS.join(', ')}\n`);
const rl = createInterface({ input: process.stdin });
rl.on('line', (raw) => {
  const text = raw.trim();
  const off = text.startsWith('-');
  const name = (off ? text.slice(1) : text) as MoonrakerFault;
  try {
    standIn.setFault(name, !off);
    process.stdout.write(`${name} ${off ? 'off' : 'on'}\n`);
  } catch (err) {
    process.stdout.write(`${(err as Error).message}\n`);
  }
});
const stop = (): void => {
  rl.close();
  void standIn.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
