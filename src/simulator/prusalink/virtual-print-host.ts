// The printer's own print host inside the PrusaLink stand-in: runs a stored file's lines on a VirtualPrinter one at a
// time (each waits for its `ok`), as the firmware's print-from-storage loop would, and keeps PrusaLink's job state.
import { stripGcodeLine } from '../../protocol/framing.js';
import type { VirtualPrinter } from '../virtual-printer.js';

/** BUSY here is a print in crash recovery or power-panic resume: on the printer, but not moving on and shown without a job. */
export type HostState = 'IDLE' | 'PRINTING' | 'PAUSED' | 'FINISHED' | 'STOPPED' | 'ERROR' | 'BUSY';

export interface HostJob {
  id: number;
  name: string;
  size: number;
  /** Offset in the G-code text just past the last line the firmware acknowledged. */
  offset: number;
  linesDone: number;
  startedAt: number;
  /** Milliseconds spent in PRINTING. */
  printingMs: number;
}

interface Line {
  text: string;
  end: number;
}

/** The file's G-code lines (comments and blank lines dropped) with the offset just past each. */
function linesOf(content: Buffer): Line[] {
  const out: Line[] = [];
  let start = 0;
  while (start < content.length) {
    let nl = content.indexOf(0x0a, start);
    if (nl < 0) nl = content.length - 1;
    const text = stripGcodeLine(content.toString('latin1', start, nl + 1).replace(/\r?\n$/, ''));
    if (text !== '') out.push({ text, end: nl + 1 });
    start = nl + 1;
  }
  return out;
}

export class VirtualPrintHost {
  state: HostState = 'IDLE';
  job: HostJob | null = null;
  /** The firmware's last error line while in ERROR. */
  message: string | null = null;
  private lines: Line[] = [];
  private next = 0;
  private inFlight = false;
  private runningSince: number | null = null;
  private nextJobId = 101;
  /** Bytes of G-code text the job runs (progress is the share of it done). */
  private textSize = 0;
  private partial = '';
  private readonly detach: () => void;

  constructor(
    private readonly printer: VirtualPrinter,
    private readonly now: () => number = Date.now,
  ) {
    this.detach = printer.onOutput((bytes) => this.output(bytes.toString('latin1')));
  }

  get canStart(): boolean {
    return this.state === 'IDLE' || this.state === 'FINISHED' || this.state === 'STOPPED';
  }

  /**
   * Starts printing `content` (G-code text); returns the job id. The caller checked canStart. `fileSize` is the stored
   * file's size when that differs from the text (a binary G-code).
   */
  start(name: string, content: Buffer, fileSize = content.length): number {
    this.lines = linesOf(content);
    this.next = 0;
    this.textSize = content.length;
    this.job = { id: this.nextJobId++, name, size: fileSize, offset: 0, linesDone: 0, startedAt: this.now(), printingMs: 0 };
    this.setState('PRINTING');
    this.pump();
    return this.job.id;
  }

  pause(): void {
    if (this.state === 'PRINTING') this.setState('PAUSED');
  }

  resume(): void {
    if (this.state !== 'PAUSED') return;
    this.setState('PRINTING');
    this.pump();
  }

  /** Crash recovery / power-panic resume: the print holds in BUSY (on), then prints on from where it was (off). */
  recover(on: boolean): void {
    if (on && this.state === 'PRINTING') this.setState('BUSY');
    else if (!on && this.state === 'BUSY') {
      this.setState('PRINTING');
      this.pump();
    }
  }

  /** Stops the print where it is and turns the heaters off. */
  stop(): void {
    if (this.state !== 'PRINTING' && this.state !== 'PAUSED') return;
    this.setState('STOPPED');
    this.lines = [];
    this.printer.hostWrite('M104 S0\nM140 S0\n');
  }

  /**
   * The share of the file done, as the firmware computes it from the file position when no M73 says otherwise: capped
   * at 99 (Prusa-Firmware-Buddy src/common/marlin_server.cpp, sd_percent_done), so 100 is never reported.
   */
  progress(): number {
    const j = this.job;
    return j && this.textSize > 0 ? Math.min(99, (j.offset / this.textSize) * 100) : 0;
  }

  /** Milliseconds printing so far (pauses excluded). */
  printingMs(): number {
    const j = this.job;
    if (!j) return 0;
    return j.printingMs + (this.runningSince !== null ? this.now() - this.runningSince : 0);
  }

  /** The firmware halts (thermal runaway) or, when cleared, restarts and the host is idle again. */
  firmwareError(on: boolean): void {
    if (on) this.printer.thermalRunaway();
    else if (this.state === 'ERROR') {
      this.message = null;
      this.printer.reset();
      this.setState('IDLE');
    }
  }

  close(): void {
    this.detach();
  }

  private setState(s: HostState): void {
    const j = this.job;
    if (j && this.runningSince !== null) j.printingMs += this.now() - this.runningSince;
    this.runningSince = s === 'PRINTING' ? this.now() : null;
    this.state = s;
  }

  private pump(): void {
    if (this.state !== 'PRINTING' || this.inFlight) return;
    const line = this.lines[this.next];
    if (!line) {
      this.setState('FINISHED');
      return;
    }
    this.inFlight = true;
    this.printer.hostWrite(line.text + '\n');
  }

  private output(text: string): void {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    for (const raw of parts) this.lineFromFirmware(raw.trim());
  }

  private lineFromFirmware(line: string): void {
    if (/^(Error:|!!)/.test(line)) {
      if (this.state !== 'ERROR') {
        this.message = line.replace(/^(Error:|!!)\s*/, '');
        this.inFlight = false;
        this.lines = [];
        this.setState('ERROR');
      }
      return;
    }
    if (!/^ok\b/.test(line) || !this.inFlight) return;
    this.inFlight = false;
    const j = this.job;
    const done = this.lines[this.next];
    if (j && done && (this.state === 'PRINTING' || this.state === 'PAUSED' || this.state === 'BUSY')) {
      j.offset = done.end;
      j.linesDone++;
      this.next++;
    }
    this.pump();
  }
}
