// The consumption report built from an extrusion state: per tool net/retracted lengths and grams with the caller's spools.
import { DEFAULT_FILAMENT_DIAMETER_MM, filamentGrams, type ExtrusionSnapshot, type SpoolSpec } from './extrusion-state.js';

/** The spool on each tool, by tool number (an array or a sparse record). */
export type SpoolsByTool = ReadonlyArray<SpoolSpec | undefined> | Readonly<Record<number, SpoolSpec>>;

/** One tool in a report. */
export interface ToolConsumption {
  tool: number;
  /** What melted: filament pushed into the nozzle, retractions subtracted. */
  net_mm: number;
  /** Forward moves that were not a retraction's recovery (extra prime included). */
  extruded_mm: number;
  /** Every retraction once; diagnostics (a recovered retraction is not in net_mm). */
  retracted_mm: number;
  /** Retracted at the end and never recovered (net_mm = extruded_mm - pending_retract_mm). */
  pending_retract_mm: number;
  flow_percent: number;
  /** net_mm in grams with this tool's spool (never below 0); null when no spool was given for the tool. */
  grams: number | null;
}

export interface ExtrusionReport {
  /** Every tool the job selected or moved, by tool number. */
  tools: ToolConsumption[];
  total_net_mm: number;
  total_retracted_mm: number;
  /** Sum of the tools' grams; tools without a spool are left out (see grams_complete). */
  total_grams: number;
  grams_complete: boolean;
  /** Volumetric E (M200) was on at some point: E words were mm³ and were converted with the M200 diameter. */
  volumetric_seen: boolean;
  firmware_moves: Record<string, number>;
  lines: number;
}

/** Every tool the job selected or moved; grams with that tool's spool (none given: null, and grams_complete false). */
export function buildExtrusionReport(s: Readonly<ExtrusionSnapshot>, spools: SpoolsByTool): ExtrusionReport {
  const tools: ToolConsumption[] = [];
  let totalNet = 0;
  let totalRetracted = 0;
  let totalGrams = 0;
  let complete = true;
  s.tools.forEach((t, tool) => {
    const used = t.net_mm !== 0 || t.retracted_mm !== 0 || t.extruded_mm !== 0 || tool === s.active_tool;
    if (!used) return;
    const spool = (spools as Record<number, SpoolSpec | undefined>)[tool];
    const grams = spool
      ? filamentGrams(Math.max(0, t.net_mm), spool.diameter_mm ?? DEFAULT_FILAMENT_DIAMETER_MM, spool.density_g_cm3)
      : null;
    if (grams === null) complete = false;
    else totalGrams += grams;
    totalNet += t.net_mm;
    totalRetracted += t.retracted_mm;
    tools.push({
      tool,
      net_mm: t.net_mm,
      extruded_mm: t.extruded_mm,
      retracted_mm: t.retracted_mm,
      pending_retract_mm: t.pending_retract_mm,
      flow_percent: t.flow_percent,
      grams,
    });
  });
  return {
    tools,
    total_net_mm: totalNet,
    total_retracted_mm: totalRetracted,
    total_grams: totalGrams,
    grams_complete: complete,
    volumetric_seen: s.volumetric_seen,
    firmware_moves: { ...s.firmware_moves },
    lines: s.lines,
  };
}
