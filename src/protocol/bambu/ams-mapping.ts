// Which AMS tray prints each filament slot of a sliced plate: the type must match (the printer cannot print PETG from a
// PLA spool), then the closest colour wins (an exact one first). Pure: the driver feeds it the trays it last read.
import type { AmsTray } from './bambu-report.js';

export interface SliceFilament {
  /** The slicer's 1-based filament slot. */
  slot: number;
  type: string | null;
  /** #RRGGBB or RRGGBB (an alpha byte is ignored). */
  color: string | null;
}

export interface TrayChoice {
  slot: number;
  tray: number;
  /** The tray's colour is not the slice's (the nearest of that type was taken). */
  colorDiffers: boolean;
}

export type AmsPlan =
  /** No AMS on the printer (or it reports no trays): the external spool prints the one filament. */
  | { useAms: false; mapping: []; choices: [] }
  | { useAms: true; mapping: number[]; choices: TrayChoice[] }
  | { refused: string };

const rgb = (c: string | null): [number, number, number] | null => {
  const m = /^#?([0-9a-f]{6})/i.exec(c ?? '');
  if (!m) return null;
  const n = Number.parseInt(m[1]!, 16);
  return [n >> 16, (n >> 8) & 0xff, n & 0xff];
};

const distance = (a: string | null, b: string | null): number => {
  const x = rgb(a);
  const y = rgb(b);
  if (!x || !y) return Number.POSITIVE_INFINITY;
  return Math.hypot(x[0] - y[0], x[1] - y[1], x[2] - y[2]);
};

const sameType = (a: string | null, b: string | null): boolean => a !== null && b !== null && a.trim().toUpperCase() === b.trim().toUpperCase();

/**
 * Plans the start of a plate: for each slot the plate uses, the tray it prints from. `ams_mapping` is indexed by slot
 * (slot 1 at 0) with -1 for slots the plate does not use. An empty tray (0 % left) is never chosen.
 */
export function planAms(filaments: readonly SliceFilament[], trays: readonly AmsTray[]): AmsPlan {
  const used = filaments.filter((f) => f.slot >= 1);
  if (trays.length === 0) {
    if (used.length > 1) return { refused: `the plate uses ${used.length} filaments and the printer reports no AMS` };
    return { useAms: false, mapping: [], choices: [] };
  }
  const choices: TrayChoice[] = [];
  for (const f of used) {
    const candidates = trays.filter((t) => sameType(t.type, f.type) && t.remainPercent !== 0);
    if (candidates.length === 0) {
      const what = f.type ?? 'an unknown type';
      return { refused: `no AMS tray holds ${what} for filament slot ${f.slot} (trays: ${trayList(trays)})` };
    }
    let best = candidates[0]!;
    for (const t of candidates) if (distance(t.color, f.color) < distance(best.color, f.color)) best = t;
    choices.push({ slot: f.slot, tray: best.index, colorDiffers: distance(best.color, f.color) !== 0 });
  }
  const length = Math.max(0, ...choices.map((c) => c.slot));
  const mapping = Array.from({ length }, () => -1);
  for (const c of choices) mapping[c.slot - 1] = c.tray;
  return { useAms: true, mapping, choices };
}

function trayList(trays: readonly AmsTray[]): string {
  return trays.map((t) => `${trayLabel(t.index)} ${t.type ?? 'empty'}${t.color ? ` #${t.color}` : ''}`).join(', ');
}

/** A1..A4 for the first unit, B1.. for the second: as the printer's screen labels trays. */
export function trayLabel(index: number): string {
  return `${String.fromCharCode(65 + (Math.floor(index / 4) % 26))}${(index % 4) + 1}`;
}
