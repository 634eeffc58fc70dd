// The printer side of the OctoPrint stand-in: a VirtualPrinter fed the selected file line by line (one line in flight,
// the next after its `ok`, console commands slipped in between, as OctoPrint's own serial loop does), with OctoPrint's
// state names, the file position, the terminal log (`Send:`/`Recv:`) and print events.
import { VirtualPrinter } from '../virtual-printer.js';
import type { SimulatorOptions } from '../simulator-options.js';

export type HostState = 'Offline' | 'Operational' | 'Printing' | 'Pausing' | 'Paused' | 'Cancelling' | 'Error';

export interface HostFile {
  name: string;
  size: number;
  date: number;
  /** The file's lines (comments stripped) with the byte offset just after each. */
  lines: Array<{ text: string; end: number }>;
}

export interface HostEvent {
  type: string;
  payload: Record<string, unknown>;
}

const LOG_LIMIT = 2000;

export class OctoPrintVirtualHost {
  printer: VirtualPrinter | null = null;
  state: HostState = 'Offline';
  errorText: string | null = null;
  file: HostFile | null = null;
  filepos = 0;
  printStartedAt: number | null = null;
  private printMs = 0;
  private runningSince: number | null = null;
  temps = { tool0: { actual: 0, target: 0 }, bed: { actual: 0, target: 0 } };
  /** Terminal log lines not yet pushed. */
  logs: string[] = [];
  private nextLine = 0;
  private inFlight: { text: string; end: number | null } | null = null;
  private readonly commands: string[] = [];
  private partial = '';
  private readonly eventListeners = new Set<(e: HostEvent) => void>();

  constructor(private readonly simulator: SimulatorOptions) {}

  onEvent(listener: (e: HostEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  get operational(): boolean {
    return this.state !== 'Offline' && this.state !== 'Error';
  }

  get printing(): boolean {
    return this.state === 'Printing' || this.state === 'Pausing' || this.state === 'Paused' || this.state === 'Cancelling';
  }

  /** Seconds printed, pauses excluded. */
  printTime(now: number): number | null {
    if (this.printStartedAt === null) return null;
    return Math.round((this.printMs + (this.runningSince !== null ? now - this.runningSince : 0)) / 1000);
  }

  /** OctoPrint connects to its printer: a fresh board, autoreport on. */
  connectPrinter(): void {
    this.disconnectPrinter();
    const printer = new VirtualPrinter(this.simulator);
    this.printer = printer;
    this.partial = '';
    printer.onOutput((bytes) => this.received(printer, bytes.toString('latin1')));
    this.state = 'Operational';
    this.errorText = null;
    this.queueCommand('M155 S1');
  }

  disconnectPrinter(): void {
    const p = this.printer;
    this.printer = null;
    if (p) p.close();
    if (this.printing) this.endPrint('PrintFailed', 'the printer was disconnected');
    this.inFlight = null;
    this.commands.length = 0;
    this.state = 'Offline';
  }

  /** The firmware halts (thermal runaway): OctoPrint shows Error with the firmware's line. */
  firmwareError(): void {
    this.printer?.thermalRunaway();
  }

  select(file: HostFile): void {
    this.file = file;
  }

  /** Starts printing the selected file; false when not possible (OctoPrint answers 409). */
  startPrint(now: number): boolean {
    if (!this.file || this.state !== 'Operational') return false;
    this.state = 'Printing';
    this.nextLine = 0;
    this.filepos = 0;
    this.printStartedAt = now;
    this.printMs = 0;
    this.runningSince = now;
    this.emitEvent('PrintStarted');
    this.pump();
    return true;
  }

  pause(now: number): void {
    if (this.state !== 'Printing') return;
    this.state = 'Pausing';
    this.emitEvent('PrintPausing');
    if (!this.inFlightIsJob()) this.paused(now);
  }

  resume(now: number): void {
    if (this.state !== 'Paused') return;
    this.state = 'Printing';
    this.runningSince = now;
    this.emitEvent('PrintResumed');
    this.pump();
  }

  cancel(now: number): void {
    if (!this.printing || this.state === 'Cancelling') return;
    if (this.runningSince !== null) this.printMs += now - this.runningSince;
    this.runningSince = null;
    this.state = 'Cancelling';
    this.emitEvent('PrintCancelling');
    if (!this.inFlightIsJob()) this.endPrint('PrintCancelled');
  }

  /** A console command: queued ahead of the next job line. */
  queueCommand(text: string): void {
    this.commands.push(text);
    this.pump();
  }

  private inFlightIsJob(): boolean {
    return this.inFlight !== null && this.inFlight.end !== null;
  }

  private paused(now: number): void {
    if (this.runningSince !== null) this.printMs += now - this.runningSince;
    this.runningSince = null;
    this.state = 'Paused';
    this.emitEvent('PrintPaused');
  }

  private pump(): void {
    const p = this.printer;
    if (!p || this.inFlight || !this.operational) return;
    const command = this.commands.shift();
    if (command !== undefined) {
      this.write(p, { text: command, end: null });
      return;
    }
    if (this.state !== 'Printing' || !this.file) return;
    const line = this.file.lines[this.nextLine];
    if (!line) {
      this.endPrint('PrintDone');
      return;
    }
    this.nextLine++;
    this.write(p, line);
  }

  private write(p: VirtualPrinter, line: { text: string; end: number | null }): void {
    this.inFlight = line;
    this.log(`Send: ${line.text}`);
    p.hostWrite(`${line.text}\n`);
  }

  private received(p: VirtualPrinter, chunk: string): void {
    if (p !== this.printer) return;
    const parts = (this.partial + chunk).split('\n');
    this.partial = parts.pop() ?? '';
    for (const raw of parts) this.line(raw.replace(/\r$/, ''));
  }

  private line(text: string): void {
    this.log(`Recv: ${text}`);
    const t = /T:\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/.exec(text);
    if (t) this.temps.tool0 = { actual: Number(t[1]), target: Number(t[2]) };
    const b = /B:\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/.exec(text);
    if (b) this.temps.bed = { actual: Number(b[1]), target: Number(b[2]) };
    if (/^Error:/.test(text) && this.printer?.isHalted) {
      // Like OctoPrint: the first halt line is the error shown; the print fails.
      if (this.state !== 'Error') {
        const wasPrinting = this.printing;
        this.errorText = text.replace(/^Error:\s*/, '');
        this.state = 'Error';
        this.inFlight = null;
        if (wasPrinting) this.endPrint('PrintFailed', this.errorText, true);
        this.emitEvent('Error', { error: this.errorText });
      }
      return;
    }
    if (!/^ok\b/.test(text) || !this.inFlight) return;
    const done = this.inFlight;
    this.inFlight = null;
    if (done.end !== null) this.filepos = done.end;
    const now = Date.now();
    if (this.state === 'Pausing' && done.end !== null) this.paused(now);
    else if (this.state === 'Cancelling' && done.end !== null) this.endPrint('PrintCancelled');
    this.pump();
  }

  private endPrint(type: 'PrintDone' | 'PrintCancelled' | 'PrintFailed', reason?: string, keepState = false): void {
    const now = Date.now();
    if (this.runningSince !== null) this.printMs += now - this.runningSince;
    this.runningSince = null;
    if (type === 'PrintDone' && this.file) this.filepos = this.file.size;
    if (!keepState && this.state !== 'Offline') this.state = 'Operational';
    this.emitEvent(type, { time: Math.round(this.printMs / 1000), ...(reason ? { reason } : {}) });
    this.pump();
  }

  private emitEvent(type: string, extra: Record<string, unknown> = {}): void {
    const f = this.file;
    const payload = f ? { name: f.name, path: f.name, origin: 'local', size: f.size, ...extra } : extra;
    for (const l of this.eventListeners) l({ type, payload });
  }

  private log(line: string): void {
    this.logs.push(line);
    if (this.logs.length > LOG_LIMIT) this.logs.splice(0, this.logs.length - LOG_LIMIT);
  }

  close(): void {
    const p = this.printer;
    this.printer = null;
    p?.close();
  }
}

/** Splits a G-code file as OctoPrint streams it: comments and blank lines are not sent, offsets count every byte. */
export function hostFile(name: string, data: Buffer, date: number): HostFile {
  const lines: HostFile['lines'] = [];
  let start = 0;
  while (start < data.length) {
    let nl = data.indexOf(0x0a, start);
    if (nl < 0) nl = data.length - 1;
    const text = data.subarray(start, nl + 1).toString('latin1').replace(/;.*$/s, '').trim();
    if (text !== '') lines.push({ text, end: nl + 1 });
    start = nl + 1;
  }
  return { name, size: data.length, date, lines };
}
