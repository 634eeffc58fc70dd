// `printfarm stream`: connect to one printer, stream a G-code file with a progress display, print a summary.
import { EventBus } from '../events/event-bus.js';
import { newId } from '../ids.js';
import { PrinterSession, type JobHandle } from '../printers/printer-session.js';
import type { JobOutcome, JobSnapshot } from '../printers/printer-state.js';
import type { ProtocolStats } from '../protocol/protocol-types.js';
import { formatProgress, progressView, type ProgressPhase } from '../printers/session-progress.js';
import { CliUsageError, type CliCommand } from './command.js';
import { parsePrinterArgs } from './printer-cli-args.js';
import { readSlicerEstimate } from '../files/file-estimate.js';

const USAGE = `Usage: printfarm stream --url URL [--profile NAME] [--estimate SECONDS] FILE.gcode

Connects to one printer, streams FILE line by line (comments stripped) and prints a summary:
lines, bytes, seconds, lines per second, resends and timeouts. While it runs, a progress line shows the phase
(connecting, heating: 143/215 °C, printing, paused), the percent of G-code bytes acknowledged (comments
excluded), lines, and an ETA: from the slicer's estimate when known, else from the measured rate.

  --url URL           serial:///dev/ttyUSB0?baud=115200, /dev/ttyACM0 (baud detected), tcp://host:port, sim://name
  --profile NAME      firmware profile to use instead of detecting it from M115 (marlin, prusa, klipper, ...)
  --estimate SECONDS  the slicer's estimate of the whole print, for the ETA (default: the slicer's own, from the
                      file's header or footer: PrusaSlicer, Orca, Bambu, Cura, Simplify3D, ideaMaker)

Exit status 0 only when every line was acknowledged and the printer finished; 1 otherwise (the reason is printed).
Ctrl-C cancels the print cleanly (the profile's cancel script runs) and exits 1.`;

/** A plain (non-terminal) progress line at most this often, besides one on every phase change. */
const PLAIN_EVERY_MS = 5000;

/** Takes `--estimate SECONDS` out of the arguments (the rest go to the shared printer flags). */
function takeEstimate(args: string[]): { rest: string[]; estimate: number | undefined } {
  const rest: string[] = [];
  let estimate: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a !== '--estimate' && !a.startsWith('--estimate=')) {
      rest.push(a);
      continue;
    }
    const raw = a.includes('=') ? a.slice(a.indexOf('=') + 1) : args[++i];
    const n = Number(raw);
    if (raw === undefined || raw === '' || !Number.isFinite(n) || n <= 0) throw new CliUsageError('--estimate needs a number of seconds > 0');
    estimate = n;
  }
  return { rest, estimate };
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
  const { rest, estimate } = takeEstimate(args);
  const { url, profile, positional } = parsePrinterArgs(rest, 'stream');
  if (positional.length !== 1) throw new CliUsageError('give exactly one G-code FILE to stream');
  const file = positional[0]!;
  const tty = process.stderr.isTTY === true;
  const bus = new EventBus();
  const session = new PrinterSession({ printerId: 'cli', url, profile, bus, autoReconnect: false });
  const estimatedSeconds = estimate ?? (await readSlicerEstimate(file));

  let interrupted = false;
  const onSigint = (): void => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`${tty ? '\n' : ''}interrupted: cancelling the print...\n`);
    session.cancel().catch(() => undefined);
  };
  process.on('SIGINT', onSigint);
  let handle: JobHandle | null = null;
  // From the first moment: connecting, then heating and printing, never a silent bar.
  let lastPhase: ProgressPhase | null = null;
  let lastPlain = 0;
  let ended: JobOutcome['status'] | undefined;
  const show = (final = false): void => {
    const snap = session.snapshot();
    const job = handle ? handle.snapshot() : null;
    const view = progressView({ status: snap.status, job, temperatures: snap.temperatures, estimatedSeconds, outcome: ended });
    const now = Date.now();
    if (tty) process.stderr.write(`\r${formatProgress(view, { tty: true })}\x1b[K${final ? '\n' : ''}`);
    else if (final || view.phase !== lastPhase || now - lastPlain >= PLAIN_EVERY_MS) {
      lastPlain = now;
      process.stderr.write(`${formatProgress(view, { tty: false })}\n`);
    }
    lastPhase = view.phase;
  };
  const ticker = setInterval(show, 200);
  try {
    show();
    try {
      await session.connect();
    } catch (err) {
      if (tty) process.stderr.write('\n');
      console.error(`printfarm stream: cannot connect to ${url}: ${(err as Error).message}`);
      return 1;
    }
    const fw = session.snapshot().firmware;
    process.stderr.write(`${tty ? '\r\x1b[K' : ''}connected: ${fw?.name ?? 'unknown firmware'} (profile ${fw?.profile ?? '?'})\n`);
    const started = Date.now();
    handle = await session.startJob({ jobId: newId('job'), filePath: file });
    const outcome = await handle.finished;
    clearInterval(ticker);
    ended = outcome.status;
    const seconds = (Date.now() - started) / 1000;
    const job = handle.snapshot();
    show(true);
    const stats = session.stats();
    for (const line of summaryLines(job, stats, seconds, outcome)) console.log(line);
    if (interrupted) return 1;
    return outcome.status === 'completed' && job.lines_acked === job.lines_sent ? 0 : 1;
  } finally {
    clearInterval(ticker);
    process.off('SIGINT', onSigint);
    await session.disconnect();
  }
}

export const streamCommand: CliCommand = {
  name: 'stream',
  usage: USAGE,
  run,
};
