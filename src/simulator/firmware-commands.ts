// What the virtual firmware does with each command: moves into the planner, dwell and homing, heaters, reports, busy lines.
import type { FirmwareDialect, HeaterReport } from './firmware-dialects.js';
import { MotionState, type Planner, word } from './motion-planner.js';
import { msToUs, type SimScheduler, type SimTimer } from './sim-scheduler.js';
import type { SimulatorOptions } from './simulator-options.js';
import { BED, HOTEND, Heater } from './thermal-model.js';

/** Commands a host adds around a job (handshake, temperature polls); executedJobLines() leaves them out. */
export const HOUSEKEEPING = /^(M110|M105|M115|M155)(?!\d)/i;
/** Commands that wait on purpose: the planner running dry around them is not starvation. */
export const DELIBERATE_WAITS = new Set(['G4', 'G28', 'G29', 'M400', 'M18', 'M84', 'M109', 'M190', 'M600', 'M0', 'M1', 'M226']);
const HOME_MS = 4000;
/** Klipper's host software restarting: from its `Disconnect` to its `Ready`. */
const KLIPPER_RESTART_MS = 2000;
const PROBE_MS = 15000;

/** Commands the model accepts without an effect worth modelling (slicer boilerplate, settings, SD, fans, ...). */
const PLAIN = new Set(
  (
    'G10 G11 G20 G21 G80 M0 M1 M17 M20 M21 M22 M23 M24 M25 M26 M27 M31 M42 M73 M75 M76 M77 M78 M80 M81 ' +
    'M92 M106 M107 M108 M111 M117 M118 M119 M120 M121 M141 M149 M150 M191 M200 M201 M202 M203 M204 M205 M206 ' +
    'M207 M208 M209 M217 M218 M220 M221 M226 M240 M250 M256 M260 M261 M280 M290 M300 M301 M302 M303 M304 ' +
    'M350 M355 M380 M381 M401 M402 M403 M404 M405 M406 M407 M412 M413 M420 M421 M422 M425 M486 M500 M501 M502 ' +
    'M503 M504 M510 M511 M512 M540 M550 M552 M555 M569 M572 M575 M584 M593 M600 M601 M602 M603 M701 M702 M710 ' +
    'M851 M862 M900 M906 M907 M913 M914 M915 M999 T0 T1 T2 T3'
  ).split(' '),
);

export interface Command {
  text: string;
  /** The line number it came with, or null. */
  n: number | null;
  code: string;
  words: string[];
}

/** Polled until the running command is done. */
export type Resume = () => boolean;

/** What the command layer needs from the printer around it. */
export interface FirmwareHost {
  readonly scheduler: SimScheduler;
  readonly planner: Planner;
  emit(line: string): void;
  /** A timer the printer cancels on reset, halt and power-off (ms rounded to whole µs). */
  after(ms: number, fn: () => void): SimTimer;
  afterUs(us: number, fn: () => void): SimTimer;
  cancel(timer: SimTimer | null): null;
  /** Runs the firmware loop again: a wait may be over. */
  service(): void;
  emergencyStop(): void;
  /** The planner stood empty `ms` simulated ms between two moves. */
  starved(ms: number): void;
}

export function parseCommand(text: string, n: number | null): Command {
  const m = /^([A-Za-z])(\d+)(\.\d+)?/.exec(text);
  const words = text.split(/\s+/);
  if (m === null) return { text, n, code: (words[0] ?? '').toUpperCase(), words: words.slice(1) };
  const code = `${m[1]!.toUpperCase()}${Number(m[2])}`;
  const rest = text.slice(m[0].length).trim();
  const split = rest === '' ? [] : rest.split(/\s+/);
  if (code[0] !== 'G') return { text, n, code, words: split };
  // Marlin reads G-code words without spaces between them too (`G1X10E5`, as a MeatPack host sends them in its
  // no-spaces mode); such a line is kept as the firmware reads it, one space between words (`G1 X10 E5`).
  const parts = split.flatMap(compactWords);
  const compact = parts.length !== split.length || (rest !== '' && text[m[0].length] !== ' ' && text[m[0].length] !== '\t');
  return { text: compact ? [m[0], ...parts].join(' ') : text, n, code, words: parts };
}

const COMPACT = /^(?:[A-Za-z][-+]?[\d.]+)+$/;

function compactWords(token: string): string[] {
  if (!COMPACT.test(token)) return [token];
  return token.match(/[A-Za-z][-+]?[\d.]+/g) ?? [token];
}

export class FirmwareCommands {
  motion = new MotionState();
  readonly hotend: Heater;
  readonly bed: Heater;
  /** Data for the ok line of the command just run (M105 temperatures, Klipper's M115), or null. */
  okSuffix: string | null = null;
  private busyIntervalS: number;
  /** M211 state; power-on default from the options. */
  private softEndstops: boolean;
  private autoreportS = 0;
  private busyTimer: SimTimer | null = null;
  private heatTimer: SimTimer | null = null;
  private autoreportTimer: SimTimer | null = null;
  /** A heat-up wait (M109/M190) is running: M108 may end it. */
  private heatWaiting = false;
  /** M108 arrived during the heat-up wait: it ends at the next look. */
  private waitBroken = false;

  constructor(
    private readonly host: FirmwareHost,
    private readonly dialect: FirmwareDialect,
    private readonly options: SimulatorOptions,
    /** Simulated ms per scheduler ms. */
    private readonly timeScale: number,
    /** Moves, dwell and heating take no time. */
    private readonly instant: boolean,
  ) {
    this.hotend = new Heater(HOTEND, instant);
    this.bed = new Heater(BED, instant);
    this.busyIntervalS = options.busyIntervalS;
    this.softEndstops = options.softEndstops;
  }

  /** Simulated firmware ms -> scheduler ms for things that take time (moves, dwell, homing). */
  work(ms: number): number {
    return this.instant ? 0 : ms / this.timeScale;
  }
  /** Simulated ms -> scheduler ms for periodic reports, which keep their pace even at speed=max. */
  period(ms: number): number {
    return ms / this.timeScale;
  }
  /** Simulated ms since the scheduler's epoch (for the heater model, which is continuous anyway). */
  simNow(): number {
    return (this.host.scheduler.nowUs() / 1000) * this.timeScale;
  }

  temperatures(): HeaterReport {
    const t = this.simNow();
    return {
      hotend: this.hotend.read(t),
      hotendTarget: this.hotend.target,
      bed: this.bed.read(t),
      bedTarget: this.bed.target,
      hotendPower: this.hotend.power(t),
      bedPower: this.bed.power(t),
    };
  }

  /** Power-on defaults (the metal keeps its heat); the printer has already cancelled every timer. */
  powerOn(): void {
    this.motion = new MotionState();
    this.coolDown();
    this.busyIntervalS = this.options.busyIntervalS;
    this.softEndstops = this.options.softEndstops;
    this.okSuffix = null;
    this.heatWaiting = false;
    this.waitBroken = false;
  }

  /** Heaters off and reports stopped, as after a kill. */
  coolDown(): void {
    this.hotend.resetTarget(this.simNow());
    this.bed.resetTarget(this.simNow());
    this.autoreportS = 0;
    this.autoreportTimer = this.host.cancel(this.autoreportTimer);
  }

  /** The running command has to wait: busy lines start. */
  waiting(): void {
    if (!this.dialect.busyLines) return;
    const tick = (): void => {
      this.host.emit('echo:busy: processing');
      this.busyTimer = this.host.after(this.period(this.busyIntervalS * 1000), tick);
    };
    this.busyTimer = this.host.after(this.period(this.busyIntervalS * 1000), tick);
  }

  /** The running command is done: its busy and heating reports stop. */
  done(): void {
    this.busyTimer = this.host.cancel(this.busyTimer);
    this.heatTimer = this.host.cancel(this.heatTimer);
    this.heatWaiting = false;
    this.waitBroken = false;
  }

  /** M108 (read by the emergency parser): a running heat-up wait ends, the target stays. Nothing else waits for it. */
  breakWait(): void {
    if (this.heatWaiting) this.waitBroken = true;
  }

  private temperatureText(): string {
    return this.dialect.temperatures(this.temperatures());
  }

  private addBlock(ms: number): void {
    const p = this.host.planner;
    if (p.isEmpty() && p.emptySince !== null && !this.instant) {
      const gap = ((this.host.scheduler.nowUs() - p.emptySince) / 1000) * this.timeScale;
      if (gap > 0) this.host.starved(gap);
    }
    p.emptySince = null;
    p.add(ms);
  }

  /** Waits for the planner to run dry, then `ms` of simulated work. */
  private afterMoves(ms: number, then?: () => void): Resume {
    const { scheduler, planner } = this.host;
    // Integer µs: the wake-up armed for `until` finds now() >= until exactly.
    let until: number | null = null;
    return () => {
      if (!planner.isEmpty()) return false;
      if (until === null) {
        until = scheduler.nowUs() + msToUs(this.work(ms));
        if (until > scheduler.nowUs()) this.host.afterUs(until - scheduler.nowUs(), () => this.host.service());
      }
      if (scheduler.nowUs() < until) return false;
      then?.();
      return true;
    };
  }

  private waitForHeat(heater: Heater): Resume {
    const report = (): void => {
      if (this.dialect.busyLines) this.host.emit(` ${this.temperatureText()} W:?`);
      this.heatTimer = this.host.after(this.period(1000), report);
    };
    this.heatTimer = this.host.after(this.period(1000), report);
    this.heatWaiting = true;
    let wake: SimTimer | null = null;
    // Residency: within the window the wait goes on this long (Marlin's TEMP_RESIDENCY_TIME), even when never cold.
    const residencyMs = this.instant ? 0 : this.options.residencyS * 1000;
    let residentSince: number | null = null;
    return () => {
      if (this.waitBroken) return true;
      const now = this.simNow();
      let ms = heater.msToTarget(now);
      if (ms <= 0) {
        residentSince ??= now;
        ms = residentSince + residencyMs - now;
        if (ms <= 0) return true;
      }
      // At least 1 µs ahead: a heater that is a hair short of its target is looked at again later, never now.
      if (wake === null || wake.fn === null) {
        wake = this.host.afterUs(Math.max(1, Math.ceil(this.period(ms) * 1000)), () => this.host.service());
      }
      return false;
    };
  }

  /** Klipper between a RESTART and its `Klipper state: Ready`: only M115, M105 and M110 are served. */
  private klipperNotReady = false;

  /**
   * Klipper's RESTART / FIRMWARE_RESTART: the host software starts again (`// Klipper state: Disconnect`), answers
   * M115 but refuses other G-code with `!! Printer is not ready` until it says `// Klipper state: Ready` (real klippy
   * took about 2 s on the peers kit's Linux MCU).
   */
  private klipperRestart(): null {
    this.host.after(0, () => {
      this.klipperNotReady = true;
      this.host.emit('// Klipper state: Disconnect');
      this.host.after(this.period(KLIPPER_RESTART_MS), () => {
        this.klipperNotReady = false;
        this.host.emit('// Klipper state: Ready');
      });
    });
    return null;
  }

  /** Runs a command; returns null when it is done at once, or a poll that says when it is. */
  execute(cmd: Command): Resume | null {
    const { code, words } = cmd;
    const { planner } = this.host;
    this.okSuffix = null;
    if (this.options.profile === 'klipper') {
      if (this.klipperNotReady && code !== 'M115' && code !== 'M105' && code !== 'M110') {
        this.host.emit(this.dialect.errorLine('Printer is not ready'));
        return null;
      }
      if (code === 'RESTART' || code === 'FIRMWARE_RESTART') return this.klipperRestart();
    }
    switch (code) {
      case 'G0':
      case 'G1':
      case 'G2':
      case 'G3': {
        const junk = words.find((w) => /^[XYZEF]/i.test(w) && !Number.isFinite(Number(w.slice(1))));
        if (junk !== undefined && this.options.profile === 'klipper') {
          // Klipper refuses a move it cannot parse with an error line, then its ok.
          this.host.emit(this.dialect.errorLine(`Unable to parse move '${cmd.text}'`));
          return null;
        }
        const limits = this.softEndstops ? this.options.bed : null;
        if (limits !== null && this.dialect.softEndstops === 'refuse') {
          const target = this.motion.targetOf(words);
          if (MotionState.outside(target, limits)) {
            for (const l of this.dialect.moveOutOfRange(code, target)) this.host.emit(l);
            return null;
          }
        }
        const ms = this.work(this.motion.move(code, words, limits));
        if (ms <= 0) return null;
        return () => {
          if (planner.free <= 0) return false;
          this.addBlock(ms);
          return true;
        };
      }
      case 'G4': {
        const s = word(words, 'S');
        return this.afterMoves(word(words, 'P') ?? (s !== undefined ? s * 1000 : 0));
      }
      case 'G28':
        return this.afterMoves(HOME_MS, () => this.motion.home());
      case 'G29':
        return this.afterMoves(PROBE_MS);
      case 'M400':
        return this.afterMoves(0);
      case 'M18':
      case 'M84':
        // Marlin lets the planner run dry before it switches the steppers off (M18_M84.cpp, finish_and_disable), so the
        // ok comes after the last queued move; `S` only sets the idle timeout. Klipper answers at once.
        if (word(words, 'S') !== undefined || this.options.profile === 'klipper') return null;
        return this.afterMoves(0);
      case 'G90':
      case 'G91':
        this.motion.setAbsolute(code === 'G90');
        return null;
      case 'M82':
      case 'M83':
        this.motion.setAbsoluteE(code === 'M82');
        return null;
      case 'G92':
        this.motion.setPosition(words);
        return null;
      case 'M104':
      case 'M109':
      case 'M140':
      case 'M190': {
        const heater = code === 'M104' || code === 'M109' ? this.hotend : this.bed;
        const target = word(words, 'S') ?? word(words, 'R');
        if (target !== undefined) heater.setTarget(target, this.simNow());
        return code === 'M109' || code === 'M190' ? this.waitForHeat(heater) : null;
      }
      case 'M105':
        if (this.dialect.okOnReceipt) this.host.emit(this.temperatureText());
        else this.okSuffix = this.temperatureText();
        return null;
      case 'M155':
        if (!this.dialect.supportsAutoreport || !this.options.autoreport) return this.unknown(cmd);
        this.setAutoreport(word(words, 'S') ?? 0);
        return null;
      case 'M115': {
        const lines = this.dialect.m115({
          advancedOk: this.options.advancedOk,
          autoreport: this.options.autoreport,
          emergencyParser: this.options.emergencyParser,
          meatpack: this.options.meatpack,
        });
        if (this.dialect.m115InOk) this.okSuffix = lines.join(' ');
        else for (const l of lines) this.host.emit(l);
        return null;
      }
      case 'M113':
        this.busyIntervalS = word(words, 'S') || this.busyIntervalS;
        return null;
      case 'M114': {
        const p = this.motion.pos;
        this.host.emit(`X:${p.X.toFixed(2)} Y:${p.Y.toFixed(2)} Z:${p.Z.toFixed(2)} E:${p.E.toFixed(2)} Count X:0 Y:0 Z:0`);
        return null;
      }
      case 'M110':
        return null;
      case 'M211': {
        const s = word(words, 'S');
        if (s !== undefined) this.softEndstops = s !== 0;
        for (const l of this.dialect.softEndstopReport(this.softEndstops, this.options.bed)) this.host.emit(l);
        return null;
      }
      case 'M112':
        this.host.after(0, () => this.host.emergencyStop());
        return null;
      case 'M410':
        planner.clear();
        return null;
      default:
        if (PLAIN.has(code)) return null;
        if (this.options.profile === 'klipper' && /^[A-Z][A-Z_][A-Z0-9_]*$/.test(code)) return null;
        return this.unknown(cmd);
    }
  }

  private unknown(cmd: Command): null {
    for (const l of this.dialect.unknownCommand(cmd.text)) this.host.emit(l);
    return null;
  }

  private setAutoreport(seconds: number): void {
    this.autoreportS = Math.max(0, seconds);
    this.autoreportTimer = this.host.cancel(this.autoreportTimer);
    if (this.autoreportS <= 0) return;
    const tick = (): void => {
      this.host.emit(` ${this.temperatureText()}`);
      this.autoreportTimer = this.host.after(this.period(this.autoreportS * 1000), tick);
    };
    this.autoreportTimer = this.host.after(this.period(this.autoreportS * 1000), tick);
  }
}
