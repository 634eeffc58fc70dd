// The Klipper side of the Moonraker stand-in: a VirtualPrinter running Klipper's dialect, fed one line at a time by a
// virtual_sdcard that reads the uploaded file (as Klippy does), with print_stats, G-code scripts, and Klippy's states.
import { stripGcodeLine } from '../../protocol/framing.js';
import { ExtrusionTracker } from '../../protocol/extrusion-tracker.js';
import { DEFAULT_SIMULATOR_OPTIONS, type SimulatorOptions } from '../simulator-options.js';
import { VirtualPrinter } from '../virtual-printer.js';

export type KlippyState = 'ready' | 'startup' | 'shutdown' | 'error' | 'disconnected';
type PrintState = 'standby' | 'printing' | 'paused' | 'complete' | 'cancelled' | 'error';

/** A G-code error as Klipper raises it (Moonraker answers it with HTTP 400). */
export class GcodeError extends Error {}

interface Queued {
  line: string;
  done: (lines: string[], error: string | null) => void;
}

export interface KlipperHostEvents {
  /** A line Klipper printed (gcode response), without the `ok`. */
  response(text: string): void;
  /** Klippy changed state (ready, shutdown, disconnected). */
  klippy(state: KlippyState): void;
}

export class KlipperHost {
  readonly printer: VirtualPrinter;
  klippy: KlippyState = 'ready';
  stateMessage = 'Printer is ready';
  private readonly files = new Map<string, Buffer>();
  private readonly queue: Queued[] = [];
  private inFlight: { q: Queued; lines: string[] } | null = null;
  private partial = '';

  // print_stats / virtual_sdcard
  private state: PrintState = 'standby';
  private filename = '';
  private message = '';
  private file: Buffer | null = null;
  private position = 0;
  private printMs = 0;
  /** Printing time before the first extrusion: Klipper's print_duration leaves it out (print_stats.py init_duration). */
  private initMs = 0;
  /** A pause waits for the running line: the reader takes no next one meanwhile. */
  private holding = false;
  private totalStart = 0;
  private runningSince: number | null = null;
  private extrusion = new ExtrusionTracker('klipper');
  private displayMessage = '';
  /** Bumped when a print is stopped: the reader of an older print stops reading. */
  private printGen = 0;
  private idleWaiters: Array<() => void> = [];
  /** The reader waits for a print line's ok. */
  private readerBusy = false;

  constructor(
    options: Partial<SimulatorOptions>,
    private readonly events: KlipperHostEvents,
  ) {
    this.printer = new VirtualPrinter({ ...DEFAULT_SIMULATOR_OPTIONS, baud: 0, record: false, ...options, profile: 'klipper' });
    this.printer.onOutput((bytes) => this.output(bytes.toString('latin1')));
  }

  close(): void {
    this.printGen++;
    this.printer.close();
  }

  // ---------------------------------------------------------------- files and objects

  saveFile(name: string, data: Buffer): void {
    this.files.set(name, data);
  }

  hasFile(name: string): boolean {
    return this.files.has(name);
  }

  /** Every object the stand-in serves, as Klipper would report it now. */
  objects(): Record<string, Record<string, unknown>> {
    const t = this.printer.temperatures();
    const size = this.file?.length ?? 0;
    const now = Date.now();
    const printMs = this.printMs + (this.runningSince !== null ? now - this.runningSince : 0);
    const progress = size > 0 ? this.position / size : 0;
    const filamentUsed = Math.round(this.extrusion.netMm(0) * 1000) / 1000;
    if (filamentUsed <= 0) this.initMs = printMs;
    return {
      webhooks: { state: this.klippy, state_message: this.stateMessage },
      print_stats: {
        filename: this.filename,
        state: this.state,
        message: this.message,
        print_duration: (printMs - this.initMs) / 1000,
        total_duration: this.totalStart ? (now - this.totalStart) / 1000 : 0,
        filament_used: filamentUsed,
        info: { total_layer: null, current_layer: null },
      },
      virtual_sdcard: {
        file_path: this.filename ? `/home/pi/printer_data/gcodes/${this.filename}` : null,
        progress,
        is_active: this.state === 'printing',
        file_position: this.position,
        file_size: size,
      },
      extruder: { temperature: r2(t.hotend), target: t.hotendTarget, power: r2(t.hotendPower), can_extrude: t.hotend >= 170 },
      heater_bed: { temperature: r2(t.bed), target: t.bedTarget, power: r2(t.bedPower) },
      display_status: { message: this.displayMessage, progress },
      // Klipper's toolhead has no status field (the recording in test/network/recorded/moonraker.json).
      toolhead: { homed_axes: '', extruder: 'extruder', position: [0, 0, 0, 0] },
    };
  }

  // ---------------------------------------------------------------- G-code

  /** Runs a script (lines separated by \n) after what is queued; rejects with the first error line. */
  async script(script: string): Promise<void> {
    this.requireReady();
    for (const raw of script.split('\n')) {
      const line = stripGcodeLine(raw);
      if (line === '') continue;
      const { error } = await this.run(line);
      if (error !== null) throw new GcodeError(error);
    }
  }

  private run(line: string): Promise<{ lines: string[]; error: string | null }> {
    return new Promise((resolve) => {
      this.queue.push({ line, done: (lines, error) => resolve({ lines, error }) });
      this.pump();
    });
  }

  private pump(): void {
    if (this.inFlight || this.klippy !== 'ready') return;
    const q = this.queue.shift();
    if (!q) return;
    this.inFlight = { q, lines: [] };
    const m117 = /^M117\s?(.*)$/i.exec(q.line);
    if (m117) this.displayMessage = m117[1]!;
    this.printer.hostWrite(q.line + '\n');
  }

  private output(text: string): void {
    let data = this.partial + text;
    let nl = data.indexOf('\n');
    while (nl >= 0) {
      this.line(data.slice(0, nl).replace(/\r$/, ''));
      data = data.slice(nl + 1);
      nl = data.indexOf('\n');
    }
    this.partial = data;
  }

  private line(text: string): void {
    if (text === '') return;
    if (/^\/\/ Klipper state: Shutdown/.test(text)) return; // the halt itself is reported by shutdown()
    const f = this.inFlight;
    if (/^ok\b/.test(text)) {
      const rest = text.slice(2).trim();
      if (rest) this.respond(rest, f);
      if (!f) return;
      this.inFlight = null;
      const error = f.lines.find((l) => l.startsWith('!! '));
      f.q.done(f.lines, error ? error.slice(3) : null);
      this.pump();
      return;
    }
    this.respond(text, f);
  }

  private respond(text: string, f: { lines: string[] } | null): void {
    f?.lines.push(text);
    this.events.response(text);
  }

  // ---------------------------------------------------------------- printing

  startPrint(name: string): void {
    this.requireReady();
    if (this.state === 'printing' || this.state === 'paused') throw new GcodeError('SD busy');
    const data = this.files.get(name);
    if (!data) throw new GcodeError(`Unable to open file "${name}"`);
    this.printGen++;
    this.file = data;
    this.filename = name;
    this.position = 0;
    this.message = '';
    this.printMs = 0;
    this.initMs = 0;
    this.totalStart = Date.now();
    this.extrusion = new ExtrusionTracker('klipper');
    this.setState('printing');
    void this.read(this.printGen);
  }

  /** Pauses after the line being run; resolves once paused. */
  /** As in Klipper, PAUSE waits for the G-code holding the queue (an M109 wait): the print reads `printing` until then. */
  async pause(): Promise<void> {
    this.requireReady();
    if (this.state === 'paused') return;
    if (this.state !== 'printing') throw new GcodeError('Print is not in progress');
    this.holding = true;
    try {
      await this.lineSettled();
    } finally {
      this.holding = false;
    }
    if (this.state === 'printing') this.setState('paused');
  }

  async resume(): Promise<void> {
    this.requireReady();
    if (this.state !== 'paused') throw new GcodeError('Print is not paused, resume aborted');
    // The reader of the paused print must be done with its line, or two readers would send the next one twice.
    await this.lineSettled();
    if (this.state !== 'paused') return;
    this.setState('printing');
    void this.read(this.printGen);
  }

  /**
   * Stops reading, lets the running line finish, turns the heaters off (as CANCEL_PRINT macros do). As in Klipper, the
   * cancel waits for the G-code that holds the queue (an M109 wait) and the print reads `printing` until then.
   */
  async cancel(): Promise<void> {
    this.requireReady();
    if (this.state !== 'printing' && this.state !== 'paused') throw new GcodeError('No print in progress');
    const gen = ++this.printGen;
    await this.lineSettled();
    if (gen !== this.printGen || (this.state !== 'printing' && this.state !== 'paused')) return;
    this.setState('cancelled');
    await this.script('M104 S0\nM140 S0');
  }

  /** Emergency stop or a fault: Klipper halts with a message, the print ends in error. */
  shutdown(message: string): void {
    if (this.klippy === 'shutdown') return;
    this.printer.thermalRunaway(); // halts the board: heaters off, queue dropped
    this.klippy = 'shutdown';
    this.stateMessage = `${message}\nOnce the underlying issue is corrected, use the "FIRMWARE_RESTART" command to reset the firmware, reload the config, and restart the host software.\nPrinter is shutdown`;
    this.abortCommands(message);
    if (this.state === 'printing' || this.state === 'paused') {
      this.printGen++;
      this.message = message;
      this.setState('error');
    }
    this.events.response(`!! ${message}`);
    this.events.klippy('shutdown');
  }

  /** Klippy stops (restart, crash): Moonraker loses it; whatever printed is gone. */
  disconnect(): void {
    if (this.klippy === 'disconnected') return;
    this.klippy = 'disconnected';
    this.stateMessage = 'Klippy Disconnected';
    this.abortCommands('Klippy Disconnected');
    this.events.klippy('disconnected');
  }

  /** FIRMWARE_RESTART (or Klippy coming back): a fresh Klipper, ready, nothing loaded. */
  restart(): void {
    this.printGen++;
    this.abortCommands('Klipper restarted');
    this.printer.start();
    this.partial = '';
    this.state = 'standby';
    this.runningSince = null;
    this.filename = '';
    this.file = null;
    this.position = 0;
    this.message = '';
    this.totalStart = 0;
    this.printMs = 0;
    this.initMs = 0;
    this.klippy = 'ready';
    this.stateMessage = 'Printer is ready';
    this.events.klippy('ready');
  }

  private async read(gen: number): Promise<void> {
    const file = this.file!;
    let sinceYield = 0;
    while (gen === this.printGen && this.state === 'printing' && !this.holding) {
      if (this.position >= file.length) {
        this.setState('complete');
        return;
      }
      let end = file.indexOf(0x0a, this.position);
      end = end < 0 ? file.length : end + 1;
      const line = stripGcodeLine(file.toString('utf8', this.position, end));
      if (line === '') {
        this.position = end;
        // A long run of comments must not hold the event loop.
        if (++sinceYield % 2000 === 0) await new Promise((r) => setImmediate(r));
        continue;
      }
      this.readerBusy = true;
      const { error } = await this.run(line);
      this.readerBusy = false;
      if (gen === this.printGen) {
        this.extrusion.update(line);
        this.position = end;
        if (error !== null) {
          this.message = error;
          this.setState('error');
        }
      }
      this.settled();
    }
  }

  /** Resolves once the print line being run (if any) is done. */
  private lineSettled(): Promise<void> {
    if (!this.readerBusy) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private settled(): void {
    if (this.readerBusy) return;
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const f of w) f();
  }

  private setState(state: PrintState): void {
    const now = Date.now();
    if (this.runningSince !== null) this.printMs += now - this.runningSince;
    this.runningSince = state === 'printing' ? now : null;
    this.state = state;
  }

  private abortCommands(why: string): void {
    const pending = [...(this.inFlight ? [this.inFlight.q] : []), ...this.queue.splice(0)];
    this.inFlight = null;
    for (const q of pending) q.done([], why);
    this.settled();
  }

  private requireReady(): void {
    if (this.klippy !== 'ready') throw new KlippyNotReady(this.klippy);
  }
}

/** Requests that need Klipper while it is not ready (Moonraker answers 503 or Klipper's own error). */
export class KlippyNotReady extends Error {
  constructor(readonly state: KlippyState) {
    super(state === 'disconnected' ? 'Klippy Host not connected' : `Klippy is in the ${state} state`);
  }
}

const r2 = (v: number): number => Math.round(v * 100) / 100;
