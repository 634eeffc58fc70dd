// A heater as a first-order system, evaluated in closed form on demand so heating costs no timers.

export interface HeaterSpec {
  /** Temperature the heater would settle at on full power (°C). */
  maxTemp: number;
  /** Time constant in simulated ms. */
  tauMs: number;
  ambient: number;
}

export const HOTEND: HeaterSpec = { maxTemp: 300, tauMs: 30_000, ambient: 25 };
export const BED: HeaterSpec = { maxTemp: 130, tauMs: 60_000, ambient: 25 };

/**
 * Full power towards `maxTemp` while below target, free cooling towards ambient while above it, and a hold at the
 * target once reached. `nowMs` is simulated time; `instant` heaters jump to the target.
 */
export class Heater {
  private temp: number;
  private since = 0;
  target = 0;

  constructor(
    private readonly spec: HeaterSpec,
    private readonly instant: boolean,
  ) {
    this.temp = spec.ambient;
  }

  private settle(nowMs: number): void {
    const dt = Math.max(0, nowMs - this.since);
    this.since = nowMs;
    if (this.instant) {
      this.temp = this.target > 0 ? this.target : this.spec.ambient;
      return;
    }
    const { maxTemp, tauMs, ambient } = this.spec;
    const decay = Math.exp(-dt / tauMs);
    if (this.target > 0 && this.temp < this.target) {
      this.temp = Math.min(this.target, maxTemp + (this.temp - maxTemp) * decay);
    } else {
      const floor = this.target > 0 ? this.target : ambient;
      this.temp = Math.max(floor, ambient + (this.temp - ambient) * decay);
    }
  }

  read(nowMs: number): number {
    this.settle(nowMs);
    return this.temp;
  }

  setTarget(target: number, nowMs: number): void {
    this.settle(nowMs);
    this.target = Math.max(0, Math.min(target, this.spec.maxTemp - 1));
  }

  /** PWM 0..127 as Marlin prints it after `@:`. */
  power(nowMs: number): number {
    const t = this.read(nowMs);
    if (this.target <= 0) return 0;
    if (t < this.target - 0.05) return 127;
    const { maxTemp, ambient } = this.spec;
    return Math.round((127 * (this.target - ambient)) / (maxTemp - ambient));
  }

  /** Simulated ms until the temperature is within 1 °C of the target (0 if already). */
  msToTarget(nowMs: number): number {
    const t = this.read(nowMs);
    if (this.instant || this.target <= 0 || Math.abs(t - this.target) <= 1) return 0;
    const { maxTemp, tauMs, ambient } = this.spec;
    if (t < this.target) return tauMs * Math.log((maxTemp - t) / (maxTemp - (this.target - 1)));
    return tauMs * Math.log((t - ambient) / (this.target + 1 - ambient));
  }

  /** Power-on state: targets off, the metal keeps its heat. */
  resetTarget(nowMs: number): void {
    this.setTarget(0, nowMs);
  }
}
