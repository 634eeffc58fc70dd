// Filament consumption measured on the wire: fed every acknowledged line in order, it counts per tool what the extruder pushed.
//
// Firmware facts this follows (Marlin's G-code reference and its fwretract/planner sources; choices noted where firmwares differ):
// - G0/G1/G2/G3/G5 with E move the extruder: absolute E moves by (E - position), relative E by E. Arcs spread E over the
//   arc but the total is the same, so only the E word matters here.
// - G92 E<n> sets the logical E position without moving. A bare `G92` zeroes E on Klipper and is a no-op on Marlin/RRF.
// - M82/M83 set absolute/relative E; how G90/G91 touch E depends on the dialect (see ExtrusionDialect).
// - G10/G11 firmware retraction (Marlin FWRETRACT): G10 pulls back M207 S (G10 S1: the swap length M207 W) unless the
//   active tool is already retracted; G11 pushes back what G10 pulled plus M208 S (after a swap: M208 W) unless it is not
//   retracted. Neither changes the logical E position. `G10 P.. / G10 L..` is RepRapFirmware's tool setup, not a retract.
//   Klipper does the same with SET_RETRACTION RETRACT_LENGTH / UNRETRACT_EXTRA_LENGTH (both 0 until set).
// - M221 S<p> [T<n>] sets the flow of the active (or named) tool; Marlin's planner scales every E move by it, firmware
//   retraction included, so a retraction and its recovery still cancel while the flow stays the same.
// - M200 D<d> [T<n>] [S0|1]: volumetric E (E in mm³), one switch for all tools, a diameter per tool; D0 turns it off.
//   Firmware retraction lengths stay in filament mm.
// - Tn selects the active tool. The logical E position is shared, as in Marlin; each tool keeps its own counters, flow,
//   M200 diameter and firmware-retraction state (Marlin keeps `retracted[]` per extruder).
// - M600/M701/M702 move filament with lengths stored in the firmware: counted in firmware_moves, never guessed.
import { CH_G, CH_M, CH_T, GcodeCursor } from './gcode-words.js';
import { buildExtrusionReport, type ExtrusionReport, type SpoolsByTool } from './extrusion-report.js';
import {
  MAX_TOOLS,
  checkExtrusionSnapshot,
  cloneExtrusionState,
  initialExtrusionState,
  newToolState,
  type ExtrusionDialect,
  type ExtrusionSnapshot,
  type ToolState,
} from './extrusion-state.js';

export type { ExtrusionDialect, ExtrusionSnapshot, SpoolSpec, ToolState } from './extrusion-state.js';
export { MAX_TOOLS, filamentGrams } from './extrusion-state.js';
export type { ExtrusionReport, SpoolsByTool, ToolConsumption } from './extrusion-report.js';

const CH_D = 68;
const CH_E = 69;
const CH_L = 76;
const CH_P = 80;
const CH_S = 83;
const CH_W = 87;

/** Maps a firmware profile name (firmware-profiles/*.json) to its G90/G91 E rule. */
export function extrusionDialectFor(profileName: string): ExtrusionDialect {
  if (profileName === 'klipper') return 'klipper';
  if (profileName === 'reprapfirmware') return 'reprapfirmware';
  return 'marlin';
}

export class ExtrusionTracker {
  private s: ExtrusionSnapshot;
  private readonly cur = new GcodeCursor();

  constructor(dialect: ExtrusionDialect = 'marlin') {
    this.s = initialExtrusionState(dialect);
  }

  /** A tracker carrying on from a snapshot (checked: a bad one throws an Error naming the field). */
  static restore(snapshot: unknown): ExtrusionTracker {
    const checked = checkExtrusionSnapshot(snapshot);
    const t = new ExtrusionTracker(checked.dialect);
    t.s = cloneExtrusionState(checked);
    return t;
  }

  /** Plain JSON copy of the whole state; `ExtrusionTracker.restore` of it behaves exactly like this tracker. */
  snapshot(): ExtrusionSnapshot {
    return cloneExtrusionState(this.s);
  }

  get activeTool(): number {
    return this.s.active_tool;
  }

  get linesFed(): number {
    return this.s.lines;
  }

  get isRelativeE(): boolean {
    return this.s.relative_e;
  }

  /** Net filament (mm) of one tool so far; 0 for a tool never used. */
  /** Tools seen so far (index = tool number). */
  get toolCount(): number {
    return this.s.tools.length;
  }

  netMm(tool: number): number {
    return this.s.tools[tool]?.net_mm ?? 0;
  }

  /** Job start: counters back to zero; modes, position, flow and retraction settings are the firmware's and stay. */
  resetTotals(): void {
    for (const t of this.s.tools) {
      t.net_mm = 0;
      t.extruded_mm = 0;
      t.retracted_mm = 0;
      t.pending_retract_mm = 0;
    }
    this.s.firmware_moves = {};
    this.s.lines = 0;
    this.s.volumetric_seen = this.s.volumetric;
  }

  /** Firmware reset: everything back to boot state (EEPROM-stored M207/M208 values cannot be seen: Marlin defaults). */
  reset(): void {
    this.s = initialExtrusionState(this.s.dialect);
  }

  /** One acknowledged, stripped line (see stripGcodeLine). Lines that move no filament cost a few char reads. */
  update(line: string): void {
    this.s.lines++;
    const c = this.cur;
    if (!c.start(line)) return;
    const code = c.cmdCode;
    if (code < 0) {
      if (c.cmdLetter === CH_S) this.klipperRetraction(line);
      return;
    }
    if (c.cmdLetter === CH_G) {
      // Sub-codes (G92.1 workspace reset, G1.x) are not extruder moves.
      if (c.cmdSub >= 0) return;
      switch (code) {
        case 0:
        case 1:
        case 2:
        case 3:
        case 5:
          this.move();
          return;
        case 92:
          this.setPosition();
          return;
        case 10:
          this.firmwareRetract();
          return;
        case 11:
          this.firmwareRecover();
          return;
        case 90:
          this.setModes(false, null);
          return;
        case 91:
          this.setModes(true, null);
          return;
      }
      return;
    }
    if (c.cmdLetter === CH_M) {
      switch (code) {
        case 82:
          this.setModes(null, false);
          return;
        case 83:
          this.setModes(null, true);
          return;
        case 200:
          this.volumetric();
          return;
        case 207:
        case 208:
          this.retractSettings(code);
          return;
        case 221:
          this.flow();
          return;
        case 600:
        case 701:
        case 702: {
          const key = 'M' + code;
          this.s.firmware_moves[key] = (this.s.firmware_moves[key] ?? 0) + 1;
          return;
        }
      }
      return;
    }
    if (c.cmdLetter === CH_T && code < MAX_TOOLS && c.cmdSub < 0) {
      this.s.active_tool = code;
      this.tool(code);
    }
  }

  /** Per-tool consumption; `spools[tool]` gives diameter and density for grams. */
  report(spools: SpoolsByTool = []): ExtrusionReport {
    return buildExtrusionReport(this.s, spools);
  }

  // ---- commands --------------------------------------------------------------------------------------------------

  private tool(n: number): ToolState {
    const tools = this.s.tools;
    while (tools.length <= n) tools.push(newToolState());
    return tools[n]!;
  }

  /** Filament mm the drive moves for `de` G-code units on `t`: flow, and mm³ → mm while volumetric E is on. */
  private drive(t: ToolState, de: number): number {
    let mm = (de * t.flow_percent) / 100;
    if (this.s.volumetric) {
      const r = t.volumetric_diameter_mm / 2;
      mm /= Math.PI * r * r;
    }
    return mm;
  }

  /** Books a drive movement: backwards is a retraction, forwards first recovers what is pending. */
  private book(t: ToolState, mm: number): void {
    if (mm === 0) return;
    t.net_mm += mm;
    if (mm < 0) {
      t.retracted_mm -= mm;
      t.pending_retract_mm -= mm;
      return;
    }
    const recovered = mm < t.pending_retract_mm ? mm : t.pending_retract_mm;
    t.pending_retract_mm -= recovered;
    t.extruded_mm += mm - recovered;
  }

  private move(): void {
    const c = this.cur;
    while (c.nextWord()) {
      if (c.letter !== CH_E) continue;
      const v = c.value;
      if (v !== v) continue; // NaN: `E` without a number moves nothing
      const s = this.s;
      const de = s.relative_e ? v : v - s.e_position;
      s.e_position = s.relative_e ? s.e_position + v : v;
      const t = this.tool(s.active_tool);
      this.book(t, this.drive(t, de));
      // One E word a move: the words after it (usually F) cannot change the filament.
      return;
    }
  }

  private setPosition(): void {
    const c = this.cur;
    let any = false;
    while (c.nextWord()) {
      any = true;
      if (c.letter === CH_E && c.value === c.value) this.s.e_position = c.value;
    }
    if (!any && this.s.dialect === 'klipper') this.s.e_position = 0;
  }

  /** `null` leaves that flag as it is; relative_e is then derived by the dialect's rule. */
  private setModes(g91: boolean | null, m83: boolean | null): void {
    const s = this.s;
    if (g91 !== null) {
      s.g91 = g91;
      // Marlin: G90/G91 set every axis, E included, overriding an earlier M82/M83.
      if (s.dialect === 'marlin') s.m83 = g91;
    }
    if (m83 !== null) s.m83 = m83;
    s.relative_e = s.dialect === 'klipper' ? s.g91 || s.m83 : s.m83;
  }

  private firmwareRetract(): void {
    const c = this.cur;
    let swap = false;
    while (c.nextWord()) {
      // RepRapFirmware's G10 P<tool> / G10 L<n> set tool offsets and temperatures: no filament moves.
      if (c.letter === CH_P || c.letter === CH_L) return;
      if (c.letter === CH_S) swap = c.value === c.value && c.value !== 0;
    }
    const t = this.tool(this.s.active_tool);
    if (t.fw_retract_mm !== null) return; // a second G10 in a row is ignored by the firmware
    const len = swap ? this.s.fw_retract.swap_length_mm : this.s.fw_retract.length_mm;
    t.fw_retract_mm = len;
    t.fw_swap = swap;
    this.book(t, -(len * t.flow_percent) / 100);
  }

  private firmwareRecover(): void {
    const t = this.tool(this.s.active_tool);
    if (t.fw_retract_mm === null) return; // G11 without a G10 before it does nothing
    const extra = t.fw_swap ? this.s.fw_retract.swap_recover_extra_mm : this.s.fw_retract.recover_extra_mm;
    const len = t.fw_retract_mm + extra;
    t.fw_retract_mm = null;
    t.fw_swap = false;
    this.book(t, (len * t.flow_percent) / 100);
  }

  private retractSettings(code: number): void {
    const c = this.cur;
    const r = this.s.fw_retract;
    while (c.nextWord()) {
      if (c.value !== c.value) continue;
      if (c.letter === CH_S) {
        if (code === 207) r.length_mm = c.value;
        else r.recover_extra_mm = c.value;
      } else if (c.letter === CH_W) {
        if (code === 207) r.swap_length_mm = c.value;
        else r.swap_recover_extra_mm = c.value;
      }
    }
  }

  /** Klipper's `SET_RETRACTION RETRACT_LENGTH=.. UNRETRACT_EXTRA_LENGTH=..` (an extended command: rare, so a regex is fine). */
  private klipperRetraction(line: string): void {
    if (!/^SET_RETRACTION(\s|$)/i.test(line)) return;
    const r = this.s.fw_retract;
    for (const m of line.matchAll(/\b(RETRACT_LENGTH|UNRETRACT_EXTRA_LENGTH)=(-?[\d.]+)/gi)) {
      const v = Number(m[2]);
      if (!Number.isFinite(v)) continue;
      if (m[1]!.toUpperCase() === 'RETRACT_LENGTH') r.length_mm = v;
      else r.recover_extra_mm = v;
    }
  }

  /** M221 S<percent> [T<tool>] (RepRapFirmware names the drive with D). Without S it only reports. */
  private flow(): void {
    const c = this.cur;
    let percent = NaN;
    let target = this.s.active_tool;
    while (c.nextWord()) {
      if (c.value !== c.value) continue;
      if (c.letter === CH_S) percent = c.value;
      else if (c.letter === CH_T || c.letter === CH_D) target = toolIndex(c.value);
    }
    // A tool the machine cannot have makes the firmware refuse the command.
    if (target >= 0 && percent === percent && percent >= 0) this.tool(target).flow_percent = percent;
  }

  /** M200 [D<diameter>] [S<0|1>] [T<tool>]: D>0 sets the tool's diameter and turns volumetric E on, D0 turns it off. */
  private volumetric(): void {
    const c = this.cur;
    let d = NaN;
    let sw = NaN;
    let target = this.s.active_tool;
    while (c.nextWord()) {
      if (c.value !== c.value) continue;
      if (c.letter === CH_D) d = c.value;
      else if (c.letter === CH_S) sw = c.value;
      else if (c.letter === CH_T) target = toolIndex(c.value);
    }
    if (target < 0) return; // refused by the firmware
    if (d !== d && sw !== sw) return; // M200 alone (or with only T) reports
    let enable = this.s.volumetric;
    let canEnable = true;
    if (d === d) {
      if (d > 0) {
        this.tool(target).volumetric_diameter_mm = d;
        enable = true;
      } else canEnable = false;
    }
    if (sw === sw) enable = sw !== 0;
    this.s.volumetric = canEnable && enable;
    if (this.s.volumetric) this.s.volumetric_seen = true;
  }
}

/** A T/D word's tool number, or -1 when no machine has it. */
function toolIndex(v: number): number {
  return Number.isInteger(v) && v >= 0 && v < MAX_TOOLS ? v : -1;
}
