// The answer checks the slicers make, as small functions returning what the user would see instead of success.
import { header, type WireResponse } from './raw-http.js';

export type Json = Record<string, unknown>;

const text = (res: WireResponse) => res.body.toString('utf8');

/** PrusaSlicer/Orca Http.cpp: any final status < 400 succeeds; >= 400 shows `HTTP <status>: <body>`. */
export function curlStatus(res: WireResponse): string[] {
  if (res.status >= 400) return [`shows "HTTP ${res.status}: ${text(res)}"`];
  if (res.status >= 300) return [`status ${res.status}: libcurl would follow Location (${header(res, 'Location') ?? 'none'}); this replay does not`];
  if (res.status < 200) return [`no final status (${res.status})`];
  return [];
}

/** boost::property_tree read_json: the body must be a JSON object (ptree reads arrays too, but no key lookups then succeed). */
export function ptreeJson(res: WireResponse): { json?: Json; problems: string[] } {
  try {
    const v: unknown = JSON.parse(text(res));
    if (v && typeof v === 'object' && !Array.isArray(v)) return { json: v as Json, problems: [] };
  } catch {
    // fall through: the slicer's catch branch
  }
  return { problems: ['shows "Could not parse server response" (body is not a JSON object)'] };
}

/** ptree get_optional<std::string>(path): present for any scalar, and for objects too (their data is ""). */
export function ptreeHas(json: Json, path: string): boolean {
  return ptreeGet(json, path) !== undefined;
}

export function ptreeGet(json: Json, path: string): unknown {
  let cur: unknown = json;
  for (const key of path.split('.')) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Json)[key];
  }
  return cur === null ? 'null' : cur;
}

/** ptree get_optional<bool>: true/false from JSON booleans, "true"/"false", "1"/"0"; anything else reads as absent. */
export function ptreeBool(v: unknown): boolean | undefined {
  if (v === true || v === 'true' || v === '1' || v === 1) return true;
  if (v === false || v === 'false' || v === '0' || v === 0) return false;
  return undefined;
}

/** The GET /api/version checks of OctoPrint::test / PrusaLink::test; `validText` is the host type's validate_version_text. */
export function versionChecks(res: WireResponse, validText: (t: string | undefined) => boolean): string[] {
  const status = curlStatus(res);
  if (status.length) return status;
  const { json, problems } = ptreeJson(res);
  if (!json) return problems;
  if (!ptreeHas(json, 'api')) return ['fails with an empty message: no `api` key'];
  const t = json.text === undefined ? undefined : String(ptreeGet(json, 'text'));
  return validText(t) ? [] : [`shows "Mismatched type of print host: ${t ?? 'OctoPrint'}"`];
}

/** Python json.loads + dict indexing as Cura's plugins do it: a missing key raises and the handler stops. */
export function pyJson(res: WireResponse): Json | undefined {
  try {
    const v: unknown = JSON.parse(text(res));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

export function missingKeys(json: Json | undefined, paths: string[]): string[] {
  return paths.filter((p) => {
    let cur: unknown = json;
    for (const k of p.split('.')) {
      if (!cur || typeof cur !== 'object' || !(k in (cur as Json))) return true;
      cur = (cur as Json)[k];
    }
    return false;
  });
}
