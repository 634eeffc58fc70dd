// Transcripts of the Moonraker host type in PrusaSlicer (master) and OrcaSlicer: /server/info, the upload form and Orca's
// roots query and print/start fallback. Facts: /work/notes/slicer-facts.md §3, §4b.
import { curlBoundary, curlRequest, type CurlFlavour, type FormField } from './curl-wire.js';
import type { Action, CurlSlicerOpts } from './prusa-requests.js';
import { SAMPLE_GCODE, splitUploadPath } from './prusa-requests.js';
import type { WireResponse } from './raw-http.js';
import type { Ctx, Step, Transcript } from './replay.js';
import { curlStatus, ptreeBool, ptreeGet, ptreeHas, ptreeJson, type Json } from './slicer-checks.js';

/** boost::property_tree::write_json as Orca builds the print/start body: `/` escaped, each UTF-8 byte as \u00XX, newline. */
export function ptreeWriteJson(obj: Record<string, string>): Buffer {
  const esc = (s: string) =>
    Array.from(Buffer.from(s, 'utf8'), (b) => {
      const c = String.fromCharCode(b);
      if (c === '"' || c === '\\' || c === '/') return `\\${c}`;
      const named: Record<string, string> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
      if (named[c]) return named[c];
      return b < 0x20 || b > 0x7e ? `\\u${b.toString(16).toUpperCase().padStart(4, '0')}` : c;
    }).join('');
  return Buffer.from(`{${Object.entries(obj).map(([k, v]) => `"${esc(k)}":"${esc(v)}"`).join(',')}}\n`, 'latin1');
}

function base(opts: CurlSlicerOpts, ua: string, flavour: CurlFlavour) {
  const f = { ua: opts.userAgent ?? ua, flavour: opts.flavour ?? flavour };
  const custom = (): Array<[string, string]> => (opts.apiKey ? [['X-Api-Key', opts.apiKey]] : []);
  const target = (p: string) => `${opts.basePath ?? ''}/${p}`;
  const get = (ctx: Ctx, p: string) => curlRequest({ method: 'GET', target: target(p), host: ctx.host, userAgent: f.ua, custom: custom() });
  const upload = (ctx: Ctx, fields: FormField[]) =>
    curlRequest({
      method: 'POST',
      target: target('server/files/upload'),
      host: ctx.host,
      userAgent: f.ua,
      custom: custom(),
      form: { fields, boundary: opts.boundary ?? curlBoundary(f.flavour), flavour: f.flavour },
    });
  return { f, custom, target, get, upload };
}

/** GET /server/info (the connection test, repeated before every upload) with the host type's check of the JSON. */
function infoStep(b: ReturnType<typeof base>, check: (json: Json) => string[]): Step {
  return {
    id: 'info',
    what: 'GET /server/info',
    request: (ctx) => b.get(ctx, 'server/info'),
    expect: (res) => {
      const status = curlStatus(res);
      if (status.length) return status;
      const { json, problems } = ptreeJson(res);
      return json ? check(json) : problems;
    },
  };
}

const fileField = (opts: CurlSlicerOpts, name: string): FormField => ({
  name: 'file',
  file: { filename: name, content: opts.content ?? SAMPLE_GCODE },
});

/** PrusaSlicer Moonraker.cpp: needs `result` as the FIRST key and result.moonraker_version; form root, [path], [print], file. */
export function prusaMoonraker(action: Action, opts: CurlSlicerOpts, ua: string, flavour: CurlFlavour): Transcript {
  const b = base(opts, ua, flavour);
  const info = infoStep(b, (json) =>
    // ptree.front().first: `result` must be the FIRST key.
    Object.keys(json)[0] === 'result' && ptreeHas(json, 'result.moonraker_version')
      ? []
      : ['shows "Could not parse server response" (needs result first, with moonraker_version)'],
  );
  if (action === 'test') return { name: `${b.f.ua} Moonraker test`, steps: [info] };
  const { dir, base: name } = splitUploadPath(opts.fileName ?? 'benchy.gcode', opts.windows);
  const fields: FormField[] = [{ name: 'root', value: 'gcodes' }];
  if (dir !== '') fields.push({ name: 'path', value: dir });
  if (action === 'upload-and-print') fields.push({ name: 'print', value: 'true' });
  fields.push(fileField(opts, name));
  const upload: Step = { id: 'upload', what: 'POST /server/files/upload', request: (ctx) => b.upload(ctx, fields), expect: curlStatus };
  return { name: `${b.f.ua} Moonraker ${action}`, steps: [info, upload] };
}

/** The roots Orca offers: result[] entries whose permissions contain `w`. */
function writableRoots(res: WireResponse | undefined): string[] {
  if (!res || res.status >= 400) return [];
  const r = ptreeJson(res).json?.result;
  const items: unknown[] = Array.isArray(r) ? r : r && typeof r === 'object' ? Object.values(r) : [];
  return items
    .map((i) => (i && typeof i === 'object' ? (i as Record<string, unknown>) : {}))
    .filter((i) => typeof i.name === 'string' && i.name !== '' && String(i.permissions ?? '').includes('w'))
    .map((i) => String(i.name));
}

/** OrcaSlicer Moonraker.cpp: needs result.klippy_state; roots; form root, [plateindex], print, file (no path!); print/start fallback. */
export function orcaMoonraker(action: Action, opts: CurlSlicerOpts, ua: string, flavour: CurlFlavour): Transcript {
  const b = base(opts, ua, flavour);
  const info = infoStep(b, (json) =>
    ptreeHas(json, 'result.klippy_state') ? [] : ['shows "The host responded but it doesn\'t look like Moonraker (missing result.klippy_state)."'],
  );
  if (action === 'test') return { name: `${b.f.ua} Moonraker test`, steps: [info] };
  const root = (ctx: Ctx) => {
    const roots = writableRoots(ctx.answers.roots);
    return roots.find((r) => r === opts.storage) ?? roots[0] ?? 'gcodes';
  };
  const roots: Step = {
    id: 'roots',
    what: 'GET /server/files/roots',
    optional: true,
    request: (ctx) => b.get(ctx, 'server/files/roots'),
    // Errors here are ignored by Orca (root falls back to gcodes); only a wanted root that is not offered is a problem.
    expect: (res) => (opts.storage && !writableRoots(res).includes(opts.storage) ? [`root ${opts.storage} is not offered as writable`] : []),
  };
  const name = splitUploadPath(opts.fileName ?? 'benchy.gcode', opts.windows).base;
  const upload: Step = {
    id: 'upload',
    what: 'POST /server/files/upload',
    request: (ctx) =>
      b.upload(ctx, [
        { name: 'root', value: root(ctx) },
        // Only for a .gcode.3mf upload: the 1-based plate whose G-code to print.
        ...(opts.plateIndex ? [{ name: 'plateindex', value: opts.plateIndex }] : []),
        { name: 'print', value: action === 'upload-and-print' ? 'true' : 'false' },
        fileField(opts, name),
      ]),
    expect: curlStatus,
  };
  const stored = (ctx: Ctx) => {
    const json = ctx.answers.upload ? ptreeJson(ctx.answers.upload).json : undefined;
    const path = json ? ptreeGet(json, 'result.item.path') : undefined;
    return { path: path === undefined ? name : String(path), started: json ? ptreeBool(ptreeGet(json, 'result.print_started')) === true : false };
  };
  const start: Step = {
    id: 'start',
    what: 'POST /printer/print/start (Orca: upload answer lacked result.print_started=true)',
    request: (ctx) => {
      const s = stored(ctx);
      if (action !== 'upload-and-print' || s.started) return undefined;
      const custom: Array<[string, string]> = [...b.custom(), ['Content-Type', 'application/json']];
      const target = b.target('printer/print/start');
      return curlRequest({ method: 'POST', target, host: ctx.host, userAgent: b.f.ua, custom, putBody: ptreeWriteJson({ filename: s.path }) });
    },
    expect: curlStatus,
  };
  // The roots are asked before the send dialog opens; upload() then repeats the connection test.
  return { name: `${b.f.ua} Moonraker ${action}`, steps: [roots, info, upload, start] };
}
