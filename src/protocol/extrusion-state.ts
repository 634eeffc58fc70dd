// The extrusion tracker's state as plain JSON (one TypeBox schema gives the type and the restore check), and grams maths.
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * How a firmware lets G90/G91 touch the E mode (the only dialect difference that changes counted filament):
 * - `marlin` (also Prusa, Repetier, Smoothieware, generic): G90 makes E absolute, G91 relative, like M82/M83.
 * - `klipper`: E is relative while G91 is in force or after M83; G90 brings back what M82/M83 last said.
 * - `reprapfirmware`: G90/G91 never touch E; only M82/M83 do.
 */
export const ExtrusionDialectSchema = Type.Union([Type.Literal('marlin'), Type.Literal('klipper'), Type.Literal('reprapfirmware')]);
export type ExtrusionDialect = Static<typeof ExtrusionDialectSchema>;

const Mm = Type.Number();

/** Tool numbers above this are taken for garbage, not a machine (Marlin builds top out at 8 extruders). */
export const MAX_TOOLS = 16;

/** One tool (extruder). Lengths are filament millimetres as the extruder drive moved them (flow and M200 applied). */
export const ToolStateSchema = Type.Object(
  {
    /** Filament pushed into the nozzle, retractions subtracted: what melted. */
    net_mm: Mm,
    /** Forward moves that were not the recovery of a retraction (prints, wipes, purges, extra prime). */
    extruded_mm: Mm,
    /** Every retraction once (its recovery is not counted again anywhere). */
    retracted_mm: Mm,
    /** Retracted and not yet recovered; net_mm = extruded_mm - pending_retract_mm. */
    pending_retract_mm: Mm,
    /** M221 flow in percent; scales every E move of this tool, as the firmware planner does. */
    flow_percent: Type.Number(),
    /** M200 D for this tool (used only while volumetric E is on). */
    volumetric_diameter_mm: Type.Number(),
    /** Length a G10 pulled back and G11 has not given back yet (null: not firmware-retracted). */
    fw_retract_mm: Type.Union([Type.Number(), Type.Null()]),
    /** That G10 was a swap retraction (G10 S1): the G11 adds the swap extra. */
    fw_swap: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type ToolState = Static<typeof ToolStateSchema>;

export const ExtrusionSnapshotSchema = Type.Object(
  {
    version: Type.Literal(1),
    dialect: ExtrusionDialectSchema,
    /** Lines fed so far (every line, moving or not): lets a resumed session check it lines up with its own count. */
    lines: Type.Integer({ minimum: 0 }),
    active_tool: Type.Integer({ minimum: 0, maximum: MAX_TOOLS - 1 }),
    /**
     * The logical E coordinate. One value shared by every tool, as in Marlin (current_position.e is not per extruder);
     * slicers write `G92 E0` after a tool change anyway.
     */
    e_position: Mm,
    /** Last M82/M83 (Marlin: also G90/G91) choice, and whether G91 is in force; relative_e follows the dialect. */
    m83: Type.Boolean(),
    g91: Type.Boolean(),
    relative_e: Type.Boolean(),
    /** M200 volumetric E: one switch for all tools, as in Marlin. */
    volumetric: Type.Boolean(),
    /** Volumetric E was on at some point since the counters were last reset. */
    volumetric_seen: Type.Boolean(),
    /** M207 S/W and M208 S/W (firmware retraction lengths, filament mm). */
    fw_retract: Type.Object(
      {
        length_mm: Mm,
        swap_length_mm: Mm,
        recover_extra_mm: Mm,
        swap_recover_extra_mm: Mm,
      },
      { additionalProperties: false },
    ),
    tools: Type.Array(ToolStateSchema, { maxItems: MAX_TOOLS }),
    /**
     * Commands with which the firmware moves filament by itself (M600 change, M701 load, M702 unload): counted here
     * because their lengths live in the firmware's settings and never cross the wire, so they are not in net_mm.
     */
    firmware_moves: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false },
);
export type ExtrusionSnapshot = Static<typeof ExtrusionSnapshotSchema>;

/** Marlin's Configuration_adv.h defaults: M207 S3 W13, M208 S0 W0. */
export const MARLIN_FW_RETRACT_DEFAULTS: ExtrusionSnapshot['fw_retract'] = {
  length_mm: 3,
  swap_length_mm: 13,
  recover_extra_mm: 0,
  swap_recover_extra_mm: 0,
};

/** Klipper's [firmware_retraction] defaults: retract_length 0, unretract_extra_length 0 (no swap retraction). */
export const KLIPPER_FW_RETRACT_DEFAULTS: ExtrusionSnapshot['fw_retract'] = {
  length_mm: 0,
  swap_length_mm: 0,
  recover_extra_mm: 0,
  swap_recover_extra_mm: 0,
};

/** Marlin's DEFAULT_NOMINAL_FILAMENT_DIA, the M200 diameter before any M200 D. */
export const DEFAULT_M200_DIAMETER_MM = 1.75;

/** The spool loaded on one tool. */
export interface SpoolSpec {
  /** Filament diameter (default 1.75 mm). */
  diameter_mm?: number;
  /** g/cm³ (PLA ≈ 1.24, PETG ≈ 1.27, ABS ≈ 1.04). */
  density_g_cm3: number;
}

export const DEFAULT_FILAMENT_DIAMETER_MM = 1.75;

/** Grams of `lengthMm` of filament: length × π(d/2)² gives mm³; density g/cm³ is g per 1000 mm³. */
export function filamentGrams(lengthMm: number, diameterMm: number, densityGPerCm3: number): number {
  const r = diameterMm / 2;
  return (lengthMm * Math.PI * r * r * densityGPerCm3) / 1000;
}

export function newToolState(): ToolState {
  return {
    net_mm: 0,
    extruded_mm: 0,
    retracted_mm: 0,
    pending_retract_mm: 0,
    flow_percent: 100,
    volumetric_diameter_mm: DEFAULT_M200_DIAMETER_MM,
    fw_retract_mm: null,
    fw_swap: false,
  };
}

/**
 * The state of a firmware just booted: absolute E at 0, tool 0, flow 100 %, no volumetric E, and the firmware's compiled-in
 * retraction lengths (settings saved in EEPROM or printer.cfg cannot be seen from here until M207/M208/SET_RETRACTION).
 */
export function initialExtrusionState(dialect: ExtrusionDialect): ExtrusionSnapshot {
  return {
    version: 1,
    dialect,
    lines: 0,
    active_tool: 0,
    e_position: 0,
    m83: false,
    g91: false,
    relative_e: false,
    volumetric: false,
    volumetric_seen: false,
    fw_retract: { ...(dialect === 'klipper' ? KLIPPER_FW_RETRACT_DEFAULTS : MARLIN_FW_RETRACT_DEFAULTS) },
    tools: [newToolState()],
    firmware_moves: {},
  };
}

/** A deep copy that shares nothing with `s` (plain JSON, so structuredClone is exact). */
export function cloneExtrusionState(s: ExtrusionSnapshot): ExtrusionSnapshot {
  return structuredClone(s);
}

/** Checks a snapshot read back from storage; throws an Error naming the first bad field. */
export function checkExtrusionSnapshot(input: unknown): ExtrusionSnapshot {
  if (Value.Check(ExtrusionSnapshotSchema, input)) {
    for (const n of [input.e_position, ...input.tools.flatMap((t) => [t.net_mm, t.extruded_mm, t.retracted_mm, t.pending_retract_mm])]) {
      if (!Number.isFinite(n)) throw new Error('extrusion snapshot: a length is not a finite number');
    }
    return input;
  }
  const first = Value.Errors(ExtrusionSnapshotSchema, input).First();
  const where = first ? `${first.path || '/'}: ${first.message}` : 'unknown shape';
  throw new Error(`extrusion snapshot is not valid (${where})`);
}
