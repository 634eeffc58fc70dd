// `printfarm stream`: connect to one printer, stream a G-code file with a progress display, print a summary.
import { EventBus } from '../events/event-bus.js';
import { newId } from '../ids.js';
import { PrinterSession } from '../printers/printer-session.js';
import type { JobOutcome, JobSnapshot } from '../printers/printer-state.js';
import type { ProtocolStats } from '../protocol/protocol-types.js';
import { CliUsageError, type CliCommand } from './command.js';
import { parsePrinterArgs } from './printer-cli-args.js';

const USAGE = `Usage: printfarm stream --url URL [--profile NAME] FILE.gcode

Connects to one printer, streams FILE line by line (comments stripped) and prints a summary:
lines, bytes, seconds, lines per second, resends and timeouts.

  --url URL        serial:///dev/ttyUSB0?baud=115200, /dev/ttyACM0 (baud detected), tcp://host:port, sim://name
  --profile NAME   firmware profile to use instead of detecting it from M115 (marlin, prusa, klipper, ...)

Exit status 0 only when every line was acknowledged and the printer finished; 1 otherwise (the reason is printed).
Ctrl-C cancels the print cleanly (the profile's cancel script runs) and exits 1.`;

const BAR_WIDTH = 30;

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

function progressLine(job: JobSnapshot, elapsedS: number, tty: boolean): string {
  const pct = job.progress;
  const rate = elapsedS > 0 ? job.lines_acked / elapsedS : 0;
  const counts = `${pct.toFixed(1).padStart(5)}%  ${job.lines_acked} lines  ${formatBytes(job.bytes_acked)}/${formatBytes(job.bytes_total)}  ${rate.toFixed(0)} lines/s`;
  if (!tty) return `progress ${counts}`;
  const filled = Math.round((pct / 100) * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${counts}${job.phase !== 'streaming' ? `  (${job.phase})` : ''}`;
}

export function summaryLines(job: JobSnapshot, stats: ProtocolStats | null, seconds: number, outcome: JobOutcome): string[] {
  const rate = seconds > 0 ? job.lines_acked / seconds : 0;
  const result =
    outcome.status === 'failed' ? `failed: ${outcome.error.message} (${outcome.error.code})` : outcome.status;
  return [
    `lines     ${job.lines_acked} acknowledged of ${job.lines_sent} sent`,
    `bytes     ${job.bytes_acked} of ${job.bytes_total}`,
    `seconds   ${seconds.toFixed(2)}`,
    `lines/s   ${rate.toFixed(1)}`,
    `resends   ${stats?.resends ?? 0}`,
    `timeouts  ${stats?.timeouts ?? 0}`,
    `result    ${result}`,
  ];
}

async function run(args: string[]): Promise<number> {
  const { url, profile, positional } = parsePrinterArgs(args, 'stream');
  if (positional.length !== 1) throw new CliUsageError('give exactly one G-code FILE to stream');
  const file = positional[0]!;
  const tty = process.stderr.isTTY === true;
  const bus = new EventBus();
  const session = new PrinterSession({ printerId: 'cli', url, profile, bus, autoReconnect: false });

  let interrupted = false;
  const onSigint = (): void => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`${tty ? '\n' : ''}interrupted: cancelling the print...\n`);
    session.cancel().catch(() => undefined);
  };
  process.on('SIGINT', onSigint);
  let ticker: NodeJS.Timeout | undefined;
  try {
    try {
      await session.connect();
    } catch (err) {
      console.error(`printfarm stream: cannot connect to ${url}: ${(err as Error).message}`);
      return 1;
    }
    const fw = session.snapshot().firmware;
    process.stderr.write(`connected: ${fw?.name ?? 'unknown firmware'} (profile ${fw?.profile ?? '?'})\n`);
    const started = Date.now();
    const handle = await session.startJob({ jobId: newId('job'), filePath: file });
    let lastPlain = 0;
    ticker = setInterval(
      () => {
        const job = handle.snapshot();
        const elapsed = (Date.now() - started) / 1000;
        if (tty) process.stderr.write(`\r${progressLine(job, elapsed, true)}\x1b[K`);
        else if (Date.now() - lastPlain >= 5000) {
          lastPlain = Date.now();
          process.stderr.write(`${progressLine(job, elapsed, false)}\n`);
        }
      },
      tty ? 200 : 1000,
    );
    const outcome = await handle.finished;
    clearInterval(ticker);
    const seconds = (Date.now() - started) / 1000;
    const job = handle.snapshot();
    if (tty) process.stderr.write(`\r${progressLine(job, seconds, true)}\x1b[K\n`);
    const stats = session.stats();
    for (const line of summaryLines(job, stats, seconds, outcome)) console.log(line);
    if (interrupted) return 1;
    return outcome.status === 'completed' && job.lines_acked === job.lines_sent ? 0 : 1;
  } finally {
    if (ticker) clearInterval(ticker);
    process.off('SIGINT', onSigint);
    await session.disconnect();
  }
}

export const streamCommand: CliCommand = {
  name: 'stream',
  usage: USAGE,
  run,
};
