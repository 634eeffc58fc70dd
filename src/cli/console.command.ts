// `printfarm console`: an interactive G-code terminal on one printer session (replies and unsolicited lines shown).
import { createInterface } from 'node:readline';
import { EventBus } from '../events/event-bus.js';
import { PrinterSession } from '../printers/printer-session.js';
import { CliUsageError, type CliCommand } from './command.js';
import { parsePrinterArgs } from './printer-cli-args.js';

const USAGE = `Usage: printfarm console --url URL [--profile NAME]

An interactive G-code terminal: each line typed is sent to the printer and its reply printed; lines the printer
sends on its own (echo:, errors, busy, host actions) are printed as they arrive.

  --url URL        serial:///dev/ttyUSB0?baud=115200, /dev/ttyACM0 (baud detected), tcp://host:port, sim://name
  --profile NAME   firmware profile to use instead of detecting it from M115

Console commands: !estop (or M112) emergency stop, !reconnect resets the printer and reconnects (the way out of
a halt), !status prints the printer's state, !help lists these, !quit leaves. Ctrl-D (end of input) leaves too.
Any other line starting with ! is refused, never sent to the printer.`;

const HELP = [
  '!estop      emergency stop (M112)',
  '!reconnect  reset the printer and connect again (after a halt or an error)',
  '!status     the printer state',
  '!quit       leave (or Ctrl-D)',
].join('\n');

/** What to do once the printer halted: it takes nothing until its board is reset. */
const HALTED =
  'the printer is halted: it takes no commands until it is reset. Type !reconnect to reset it and connect again, or !quit to leave.';

async function run(args: string[]): Promise<number> {
  const { url, profile, positional } = parsePrinterArgs(args, 'console');
  if (positional.length > 0) throw new CliUsageError(`unexpected argument "${positional[0]}"`);
  const bus = new EventBus();
  const session = new PrinterSession({ printerId: 'console', url, profile, bus, autoReconnect: false });
  const out = (text: string): void => void process.stdout.write(`${text}\n`);

  // Lines already printed as they arrived are not printed again as part of the reply they belong to.
  const shown = new Set<string>();
  const unsubscribe = session.onConsole((e) => {
    if (e.direction !== 'received') return;
    shown.add(e.text);
    out(`${e.kind === 'noise' ? '~ ' : '< '}${e.text}`);
  });
  bus.on('printer.error', (p) => {
    out(`! printer error: ${p.reason ?? ''}`);
    out(`! ${HALTED}`);
  });
  bus.on('printer.offline', (p) => out(`! printer offline: ${p.reason ?? ''}`));

  try {
    try {
      await session.connect();
    } catch (err) {
      console.error(`printfarm console: cannot connect to ${url}: ${(err as Error).message}`);
      return 1;
    }
    const fw = session.snapshot().firmware;
    out(`connected: ${fw?.name ?? 'unknown firmware'} (profile ${fw?.profile ?? '?'}); !help for console commands`);

    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY === true });
    rl.setPrompt('> ');
    // One command at a time, in the order typed: the replies stay readable and in order.
    let chain = Promise.resolve();
    let quit = false;
    const handle = async (raw: string): Promise<void> => {
      const text = raw.trim();
      if (text === '' || quit) return;
      if (text === '!quit' || text === '!exit') {
        quit = true;
        rl.close();
        return;
      }
      if (text === '!help') return out(HELP);
      if (text === '!status') return out(JSON.stringify(session.snapshot(), null, 2));
      try {
        if (text === '!estop') {
          session.emergencyStop();
          return out('emergency stop sent (M112)');
        }
        if (text === '!reconnect') {
          out('resetting the printer and connecting again...');
          await session.reconnect();
          const info = session.snapshot().firmware;
          return out(`connected: ${info?.name ?? 'unknown firmware'} (profile ${info?.profile ?? '?'})`);
        }
        // A typo of a console command must never reach the printer as G-code.
        if (text.startsWith('!')) return out(`! unknown console command: ${text.split(/\s/)[0]} (!help lists them)`);
        // In error the board is halted or in an unknown state: a command would only wait for an ok that never comes.
        if (session.currentStatus === 'error') return out(`! not sent: ${HALTED}`);
        shown.clear();
        const reply = await session.sendCommand(text);
        for (const line of reply.lines) if (!shown.has(line)) out(`< ${line}`);
        if (!reply.ok) out('! the printer reported an error for this command');
      } catch (err) {
        out(`! ${(err as Error).message}`);
      }
    };
    rl.on('line', (line) => {
      chain = chain.then(() => handle(line)).then(() => {
        if (!quit && process.stdin.isTTY) rl.prompt();
      });
    });
    if (process.stdin.isTTY) rl.prompt();
    await new Promise<void>((resolve) => rl.once('close', () => resolve()));
    await chain;
    return 0;
  } finally {
    unsubscribe();
    await session.disconnect();
  }
}

export const consoleCommand: CliCommand = {
  name: 'console',
  usage: USAGE,
  run,
};
