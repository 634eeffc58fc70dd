// PrusaLink::get_storage as PrusaSlicer/Orca read GET /api/v1/storage, and which storage path the send dialog then uses.
import type { WireResponse } from './raw-http.js';
import type { Ctx } from './replay.js';
import { ptreeBool, ptreeGet, ptreeHas, ptreeJson, type Json } from './slicer-checks.js';

interface Entry {
  path: string;
  name: string;
  readOnly: boolean;
  freeSpace: number;
}

interface StorageList {
  /** false when the slicer quietly ignores the answer (HTTP error, not JSON, first key not storage_list, bad free_space). */
  ok: boolean;
  entries: Entry[];
  note?: string;
}

/** std::stoll: leading integer digits, throws when there are none (a float like 1.5e9 reads as 1). */
function stoll(v: unknown): number {
  const m = /^\s*([+-]?\d+)/.exec(String(v));
  if (!m) throw new Error(`free_space ${JSON.stringify(v)} is not a number for std::stoll`);
  return Number(m[1]);
}

export function readStorageList(res: WireResponse): StorageList {
  if (res.status >= 400 || res.status < 200) return { ok: false, entries: [], note: `HTTP ${res.status} is ignored` };
  const { json } = ptreeJson(res);
  if (!json) return { ok: false, entries: [], note: 'not JSON: ignored' };
  // ptree.front().first: the FIRST key of the answer must be storage_list.
  if (Object.keys(json)[0] !== 'storage_list') return { ok: false, entries: [], note: 'first key is not storage_list: ignored' };
  const list = json.storage_list;
  const items: unknown[] = Array.isArray(list) ? list : list && typeof list === 'object' ? Object.values(list) : [];
  const entries: Entry[] = [];
  try {
    for (const item of items) {
      const e = (item && typeof item === 'object' ? item : {}) as Json;
      if (!ptreeHas(e, 'path') || ptreeBool(ptreeGet(e, 'available')) === false) continue;
      const readOnly = ptreeBool(ptreeGet(e, 'read_only')) ?? ptreeBool(ptreeGet(e, 'ro')) ?? false;
      const freeSpace = ptreeHas(e, 'free_space') ? stoll(ptreeGet(e, 'free_space')) : 1;
      entries.push({ path: String(ptreeGet(e, 'path')), name: ptreeHas(e, 'name') ? String(ptreeGet(e, 'name')) : '', readOnly, freeSpace });
    }
  } catch (err) {
    return { ok: false, entries, note: `${(err as Error).message}: the rest of the list is dropped` };
  }
  return { ok: true, entries };
}

const offered = (l: StorageList) => l.entries.filter((e) => !e.readOnly && e.freeSpace > 0);

/** The dialog's storage: the one asked for (by name or path), else the first offered; none offered means `/local`. */
export function storageChoice(wanted: string | undefined) {
  return {
    check(res: WireResponse): string[] {
      const list = readStorageList(res);
      const usable = offered(list);
      if (list.ok && usable.length === 0) {
        const why = list.entries.map((e) => `${e.path} : ${e.readOnly ? 'read only' : 'no free space'}`).join('; ');
        return [`shows "Upload has failed. There is no suitable storage found at <host>." ${why}`];
      }
      if (wanted !== undefined && !usable.some((e) => e.name === wanted || e.path === wanted)) {
        return [`storage ${JSON.stringify(wanted)} is not offered (offered: ${usable.map((e) => `${e.name}=${e.path}`).join(', ') || 'none'}; ${list.note ?? ''})`];
      }
      return [];
    },
    path(ctx: Ctx): string {
      const res = ctx.answers.storage;
      const usable = res ? offered(readStorageList(res)) : [];
      const pick = usable.find((e) => e.name === wanted || e.path === wanted) ?? usable[0];
      return pick ? pick.path : '/local';
    },
  };
}
