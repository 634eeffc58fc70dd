// Follows the G-code that was sent (G0/G1/G92/G90/G91/M82/M83/G28) to know the last position and the filament extruded.
// Consumption per tool (acknowledged lines, flow, firmware retraction, tools, grams) is ExtrusionTracker's job.
import { CH_G, CH_M, GcodeCursor } from './gcode-words.js';

const CH_E = 69;
const CH_F = 70;
const CH_X = 88;
const CH_Y = 89;
const CH_Z = 90;

export interface MotionPosition {
  x: number;
  y: number;
  z: number;
  e: number;
  /** Last feed rate seen (mm/min), or null before any F word. */
  f: number | null;
}

export class MotionTracker {
  private pos: MotionPosition = { x: 0, y: 0, z: 0, e: 0, f: null };
  private relativeXyz = false;
  private relativeE = false;
  private extruded = 0;
  /**
   * Modes as last set explicitly (null: never set since the tracker started). E is known only from M82/M83: G90/G91
   * also switch E on Marlin but not on RepRapFirmware, so after them the E mode is firmware-dependent.
   */
  private explicitRelativeXyz: boolean | null = null;
  private explicitRelativeE: boolean | null = null;
  private readonly cur = new GcodeCursor();

  /** Where the nozzle was last sent to (logical coordinates, after G92 offsets as the firmware sees them). */
  get position(): Readonly<MotionPosition> {
    return this.pos;
  }

  /**
   * Net E sent (mm): extrusions minus retractions that were not undone, as written in the G-code (no flow, no firmware
   * retraction, all tools together). For consumption use ExtrusionTracker, fed the acknowledged lines.
   */
  get totalExtruded(): number {
    return this.extruded;
  }

  get isRelativeE(): boolean {
    return this.relativeE;
  }

  get isRelativeXyz(): boolean {
    return this.relativeXyz;
  }

  /** Modes the host set itself; null where it cannot be sure (decides whether a line may safely run twice). */
  get explicitModes(): { relativeXyz: boolean | null; relativeE: boolean | null } {
    return { relativeXyz: this.explicitRelativeXyz, relativeE: this.explicitRelativeE };
  }

  /** Start counting filament from zero (job start); position and modes stay. */
  resetTotals(): void {
    this.extruded = 0;
  }

  /** Everything unknown again (firmware reset). */
  reset(): void {
    this.pos = { x: 0, y: 0, z: 0, e: 0, f: null };
    this.relativeXyz = false;
    this.relativeE = false;
    this.extruded = 0;
    this.explicitRelativeXyz = null;
    this.explicitRelativeE = null;
  }

  /** One stripped command as sent. Cheap for lines that do not move. */
  update(cmd: string): void {
    const c = this.cur;
    if (!c.start(cmd) || c.cmdCode < 0) return;
    // G1.1-style subcodes are not motion we track.
    if (c.cmdSub >= 0) return;
    const code = c.cmdCode;
    if (c.cmdLetter === CH_G) {
      if (code === 0 || code === 1) this.move();
      else if (code === 92) this.setPosition();
      else if (code === 90) {
        this.relativeXyz = false;
        this.relativeE = false;
        this.explicitRelativeXyz = false;
        this.explicitRelativeE = null;
      } else if (code === 91) {
        this.relativeXyz = true;
        this.relativeE = true;
        this.explicitRelativeXyz = true;
        this.explicitRelativeE = null;
      } else if (code === 28) this.home();
    } else if (c.cmdLetter === CH_M) {
      if (code === 82) {
        this.relativeE = false;
        this.explicitRelativeE = false;
      } else if (code === 83) {
        this.relativeE = true;
        this.explicitRelativeE = true;
      }
    }
  }

  private move(): void {
    const c = this.cur;
    while (c.nextWord()) {
      const v = c.value;
      if (Number.isNaN(v)) continue;
      switch (c.letter) {
        case CH_X:
          this.pos.x = this.relativeXyz ? this.pos.x + v : v;
          break;
        case CH_Y:
          this.pos.y = this.relativeXyz ? this.pos.y + v : v;
          break;
        case CH_Z:
          this.pos.z = this.relativeXyz ? this.pos.z + v : v;
          break;
        case CH_E: {
          const next = this.relativeE ? this.pos.e + v : v;
          this.extruded += next - this.pos.e;
          this.pos.e = next;
          break;
        }
        case CH_F:
          this.pos.f = v;
          break;
      }
    }
  }

  private setPosition(): void {
    const c = this.cur;
    let any = false;
    while (c.nextWord()) {
      any = true;
      const value = Number.isNaN(c.value) ? 0 : c.value;
      if (c.letter === CH_X) this.pos.x = value;
      else if (c.letter === CH_Y) this.pos.y = value;
      else if (c.letter === CH_Z) this.pos.z = value;
      else if (c.letter === CH_E) this.pos.e = value;
    }
    // Bare G92 zeroes every axis.
    if (!any) this.pos = { ...this.pos, x: 0, y: 0, z: 0, e: 0 };
  }

  private home(): void {
    const c = this.cur;
    let x = false;
    let y = false;
    let z = false;
    while (c.nextWord()) {
      if (c.letter === CH_X) x = true;
      else if (c.letter === CH_Y) y = true;
      else if (c.letter === CH_Z) z = true;
    }
    // G28 without axis letters homes all three; home offsets are the firmware's business, zero is our best knowledge.
    if (!x && !y && !z) x = y = z = true;
    if (x) this.pos.x = 0;
    if (y) this.pos.y = 0;
    if (z) this.pos.z = 0;
  }
}

/** Fills `{X} {Y} {Z} {E} {F}` in a pause/resume script line from a position (numbers rounded to 3 decimals). */
export function renderScriptLine(line: string, pos: Readonly<MotionPosition>): string {
  const fmt = (v: number): string => String(Math.round(v * 1000) / 1000);
  return line.replace(/\{([XYZEF])\}/g, (_m, k: string) => {
    switch (k) {
      case 'X':
        return fmt(pos.x);
      case 'Y':
        return fmt(pos.y);
      case 'Z':
        return fmt(pos.z);
      case 'E':
        return fmt(pos.e);
      default:
        return pos.f === null ? '3000' : fmt(pos.f);
    }
  });
}
