// Follows the G-code that was sent (G0/G1/G92/G90/G91/M82/M83/G28) to know the last position and the filament extruded.

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

  /** Where the nozzle was last sent to (logical coordinates, after G92 offsets as the firmware sees them). */
  get position(): Readonly<MotionPosition> {
    return this.pos;
  }

  /** Net filament pushed (mm): extrusions minus retractions that were not undone. */
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
    const c0 = cmd.charCodeAt(0);
    if (c0 !== 71 /* G */ && c0 !== 77 /* M */ && c0 !== 103 && c0 !== 109) return;
    let i = 1;
    let code = 0;
    let digits = 0;
    while (i < cmd.length) {
      const d = cmd.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      code = code * 10 + d;
      digits++;
      i++;
    }
    if (digits === 0) return;
    // G1.1-style subcodes are not motion we track.
    if (cmd.charCodeAt(i) === 46) return;
    const isG = c0 === 71 || c0 === 103;
    if (isG) {
      if (code === 0 || code === 1) this.move(cmd, i);
      else if (code === 92) this.setPosition(cmd, i);
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
      } else if (code === 28) this.home(cmd, i);
    } else if (code === 82) {
      this.relativeE = false;
      this.explicitRelativeE = false;
    } else if (code === 83) {
      this.relativeE = true;
      this.explicitRelativeE = true;
    }
  }

  private forEachWord(cmd: string, from: number, fn: (letter: string, value: number) => void): void {
    let i = from;
    const n = cmd.length;
    while (i < n) {
      const c = cmd.charCodeAt(i);
      if (c === 32 || c === 9) {
        i++;
        continue;
      }
      const letter = cmd[i]!.toUpperCase();
      i++;
      const start = i;
      // Compact G-code (`G1X10Y5`) has no spaces between words: a value ends at the next non-numeric character.
      while (i < n) {
        const d = cmd.charCodeAt(i);
        if ((d >= 48 && d <= 57) || d === 46 || d === 45 || d === 43) i++;
        else break;
      }
      const raw = cmd.slice(start, i);
      const v = raw === '' ? NaN : Number(raw);
      fn(letter, v);
    }
  }

  private move(cmd: string, from: number): void {
    this.forEachWord(cmd, from, (letter, v) => {
      if (Number.isNaN(v)) return;
      switch (letter) {
        case 'X':
          this.pos.x = this.relativeXyz ? this.pos.x + v : v;
          break;
        case 'Y':
          this.pos.y = this.relativeXyz ? this.pos.y + v : v;
          break;
        case 'Z':
          this.pos.z = this.relativeXyz ? this.pos.z + v : v;
          break;
        case 'E': {
          const next = this.relativeE ? this.pos.e + v : v;
          this.extruded += next - this.pos.e;
          this.pos.e = next;
          break;
        }
        case 'F':
          this.pos.f = v;
          break;
      }
    });
  }

  private setPosition(cmd: string, from: number): void {
    let any = false;
    this.forEachWord(cmd, from, (letter, v) => {
      any = true;
      const value = Number.isNaN(v) ? 0 : v;
      if (letter === 'X') this.pos.x = value;
      else if (letter === 'Y') this.pos.y = value;
      else if (letter === 'Z') this.pos.z = value;
      else if (letter === 'E') this.pos.e = value;
    });
    // Bare G92 zeroes every axis.
    if (!any) this.pos = { ...this.pos, x: 0, y: 0, z: 0, e: 0 };
  }

  private home(cmd: string, from: number): void {
    let x = false;
    let y = false;
    let z = false;
    this.forEachWord(cmd, from, (letter) => {
      if (letter === 'X') x = true;
      else if (letter === 'Y') y = true;
      else if (letter === 'Z') z = true;
    });
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
