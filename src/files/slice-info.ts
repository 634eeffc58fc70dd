// Pure reader of a sliced 3MF's Metadata/slice_info.config (Bambu Studio and OrcaSlicer write it): per plate the
// printer model it was sliced for, nozzle, predicted seconds, grams, and each filament slot's type, colour and use.

export interface SlicedFilament {
  /** The slicer's 1-based filament slot (the AMS mapping sent with a start maps it to a tray). */
  slot: number;
  type: string | null;
  /** "#RRGGBB" (or with alpha) as the slicer wrote it. */
  color: string | null;
  used_g: number | null;
  /** Metres. */
  used_m: number | null;
}

export interface SlicedPlate {
  /** 1-based, as in Metadata/plate_N.gcode. */
  index: number;
  printer_model_id: string | null;
  nozzle_diameter: number | null;
  /** Seconds. */
  prediction_s: number | null;
  weight_g: number | null;
  filaments: SlicedFilament[];
}

export interface SliceInfo {
  /** X-BBL-Client-Version of the header: the slicer's version. */
  client_version: string | null;
  plates: SlicedPlate[];
}

/** Attributes of one XML tag, entities decoded (the file is machine-written: no CDATA, no nesting inside a tag). */
function attributes(tag: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of tag.matchAll(/([\w:-]+)\s*=\s*"([^"]*)"/g)) out.set(m[1]!, decode(m[2]!));
  return out;
}

const decode = (s: string): string =>
  s.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_all, e: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
    if (named[e.toLowerCase()] !== undefined) return named[e.toLowerCase()]!;
    const code = e[1]?.toLowerCase() === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return Number.isFinite(code) ? String.fromCodePoint(code) : '';
  });

const num = (v: string | undefined): number | null => {
  if (v === undefined || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : null;
};

const text = (v: string | undefined): string | null => (v === undefined || v.trim() === '' ? null : v.trim());

/** The first of several nozzle diameters ("0.4" or "0.4,0.4" on two-nozzle printers). */
const firstNumber = (v: string | undefined): number | null => num(v?.split(/[,;\s]+/)[0]);

export function parseSliceInfo(xml: string): SliceInfo {
  let clientVersion: string | null = null;
  for (const m of xml.matchAll(/<header_item\b[^>]*>/g)) {
    const a = attributes(m[0]);
    if (a.get('key') === 'X-BBL-Client-Version') clientVersion = text(a.get('value'));
  }
  const plates: SlicedPlate[] = [];
  for (const block of xml.matchAll(/<plate\b[^>]*>([\s\S]*?)<\/plate>/g)) {
    const body = block[1]!;
    const meta = new Map<string, string>();
    for (const m of body.matchAll(/<metadata\b[^>]*>/g)) {
      const a = attributes(m[0]);
      const key = a.get('key');
      if (key !== undefined) meta.set(key, a.get('value') ?? '');
    }
    const filaments: SlicedFilament[] = [];
    for (const m of body.matchAll(/<filament\b[^>]*>/g)) {
      const a = attributes(m[0]);
      const slot = num(a.get('id'));
      if (slot === null || !Number.isInteger(slot)) continue;
      filaments.push({ slot, type: text(a.get('type')), color: text(a.get('color')), used_g: num(a.get('used_g')), used_m: num(a.get('used_m')) });
    }
    const index = num(meta.get('index'));
    plates.push({
      index: index !== null && Number.isInteger(index) ? index : plates.length + 1,
      printer_model_id: text(meta.get('printer_model_id')),
      nozzle_diameter: firstNumber(meta.get('nozzle_diameters')),
      prediction_s: num(meta.get('prediction')),
      weight_g: num(meta.get('weight')),
      filaments,
    });
  }
  return { client_version: clientVersion, plates };
}

/**
 * Bambu's model codes as slice_info.config and the printer's own reports name them, with the name on the printer.
 * A code not listed still matches a printer whose model is set to the same code.
 */
export const BAMBU_MODELS: Readonly<Record<string, string>> = {
  'BL-P001': 'X1 Carbon',
  'BL-P002': 'X1',
  C13: 'X1E',
  C11: 'P1P',
  C12: 'P1S',
  N1: 'A1 mini',
  N2S: 'A1',
  O1D: 'H2D',
};

export const bambuModelName = (id: string | null): string | null => (id === null ? null : (BAMBU_MODELS[id] ?? null));

const modelKey = (s: string): string =>
  s
    .toLowerCase()
    .replace(/^bambu\s*(lab)?\s*/, '')
    .replace(/[\s_-]+/g, '');

/** Whether a printer's model (as set on it: "P1S", "Bambu Lab P1S", "C12") is the one a slice was made for. */
export function modelMatchesSlice(printerModel: string | null, sliceModelId: string): boolean {
  if (printerModel === null || printerModel.trim() === '') return false;
  const own = modelKey(printerModel);
  if (own === modelKey(sliceModelId)) return true;
  const name = bambuModelName(sliceModelId);
  // "X1 Carbon" is also called X1C.
  return name !== null && (own === modelKey(name) || (sliceModelId === 'BL-P001' && own === 'x1c'));
}
