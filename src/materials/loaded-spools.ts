// The spools loaded on each printer, in the shape the scheduler matches jobs against (type, colour, grams left).
import type { Kysely } from 'kysely';
import type { LoadedMaterial } from '../scheduler/scheduler-types.js';
import type { Database } from '../storage/schema.js';
import { loadedMaterials } from './materials.repository.js';

export async function spoolsByPrinter(db: Kysely<Database>): Promise<Map<string, LoadedMaterial[]>> {
  const byPrinter = new Map<string, LoadedMaterial[]>();
  for (const s of await loadedMaterials(db)) {
    const list = byPrinter.get(s.printer_id!) ?? [];
    list.push({ tool: s.tool, type: s.type, color: s.color, remaining_g: s.remaining_weight });
    byPrinter.set(s.printer_id!, list);
  }
  return byPrinter;
}
