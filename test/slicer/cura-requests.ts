// Transcripts of Cura's OctoPrint plugin (fieldOfView 3.7.3) and Moonraker plugin (emtrax-ltd): Qt requests, the file part
// among the form fields, and the plugins' answer checks. Facts and line numbers: /work/notes/slicer-facts.md §5-6.
import type { Action } from './prusa-requests.js';
import { SAMPLE_GCODE } from './prusa-requests.js';
import { qtBoundary, qtRequest, type QtPart } from './qt-wire.js';
import { header, type BodyPart, type WireResponse } from './raw-http.js';
import type { Ctx, Step, Transcript } from './replay.js';
import { missingKeys, pyJson } from './slicer-checks.js';

export interface CuraOpts {
  /** The job name shown in Cura; the plugin appends `.gcode` itself (a trailing `.gcode` given here is dropped). */
  fileName?: string;
  /** The upload options dialog's folder (OctoPrint) or upload path (Moonraker). */
  folder?: string;
  content?: BodyPart;
  apiKey?: string;
  boundary?: string;
  /** The instance path / URL path the user configured, default `/`. */
  basePath?: string;
  userAgent?: string;
  /** OctoPrint plugin: select+print sent as a command after the upload (OctoPrint analysis wait, .ufp) instead of form fields. */
  selectAfterUpload?: boolean;
}

const jobName = (o: CuraOpts) => (o.fileName ?? 'benchy').replace(/\.gcode$/, '').trim() || 'untitled_print';
const stripSlashes = (s: string) => s.replace(/^[\s/]+|[\s/]+$/g, '');
const text = (res: WireResponse) => res.body.toString('utf8');
const refused = (res: WireResponse) => res.status === 401 || res.status === 403;

/** OctoPrintOutputDevice: raw X-Api-Key, User-Agent, and Content-Type: application/json on every request it makes. */
export function curaOctoPrint(action: Action, o: CuraOpts): Transcript {
  const ua = o.userAgent ?? 'Cura/5.8.1 OctoPrintPlugin/3.7.3';
  const api = `${(o.basePath ?? '/').replace(/\/?$/, '/')}api/`;
  const key = o.apiKey ?? '';
  const get = (ctx: Ctx, p: string, raw = jsonHeaders()) => qtRequest({ method: 'GET', target: p, host: ctx.host, raw });
  const jsonHeaders = (): Array<[string, string]> => [['X-Api-Key', key], ['User-Agent', ua], ['Content-Type', 'application/json']];
  const post = (ctx: Ctx, p: string, json: string) => qtRequest({ method: 'POST', target: p, host: ctx.host, raw: jsonHeaders(), body: Buffer.from(json) });
  const autoPrint = action === 'upload-and-print';

  const printer: Step = {
    id: 'printer',
    what: 'GET /api/printer',
    request: (ctx) => get(ctx, `${api}printer`),
    expect: (res) => {
      if (refused(res)) return ['shows "OctoPrint on <id> does not allow access to the printer state"'];
      if (res.status !== 200) return [`status ${res.status}: printer shown offline`];
      const flags = ['error', 'closedOrError', 'paused', 'pausing', 'printing', 'cancelling', 'ready', 'operational'];
      const missing = missingKeys(pyJson(res), ['state.flags', ...flags.map((f) => `state.flags.${f}`)]);
      if (missing.length) return [`KeyError on ${missing.join(', ')}: the plugin's handler stops, printer stays offline`];
      const f = (pyJson(res)?.state as { flags: Record<string, unknown> }).flags;
      const idle = !f.error && !f.closedOrError && !f.paused && !f.pausing && !f.printing && !f.cancelling && Boolean(f.ready || f.operational);
      return autoPrint && !idle ? ['shows "OctoPrint is busy. Unable to start a new job." (flags are not idle)'] : [];
    },
  };
  const job: Step = {
    id: 'job',
    what: 'GET /api/job',
    request: (ctx) => get(ctx, `${api}job`),
    expect: (res) => {
      if (res.status !== 200) return [`status ${res.status}: job state shown offline`];
      const missing = missingKeys(pyJson(res), ['state', 'job.file.name', 'progress.printTime', 'progress.completion', 'progress.printTimeLeft']);
      return missing.length ? [`missing ${missing.join(', ')}: the plugin's handler raises`] : [];
    },
  };

  if (action === 'test') {
    const probe: Step = {
      id: 'probe',
      what: 'GET /plugin/appkeys/probe',
      optional: true,
      request: (ctx) => get(ctx, `${api.slice(0, -4)}plugin/appkeys/probe`, [['User-Agent', ua]]),
      expect: () => [], // 204 shows the AppKeys button; anything else hides it
    };
    const settingsKey: Step = {
      id: 'settings-key',
      what: 'GET /api/settings (API key check in the add-printer dialog)',
      request: (ctx) => get(ctx, `${api}settings`, [['User-Agent', ua], ['X-Api-Key', key]]),
      expect: (res) =>
        res.status === 200 ? [] : res.status === 401 ? ['the dialog reports the API key as not accepted'] : [`status ${res.status}: key not accepted`],
    };
    const settings: Step = {
      id: 'settings',
      what: 'GET /api/settings',
      request: (ctx) => get(ctx, `${api}settings`),
      expect: (res) => (res.status === 200 ? [] : [`status ${res.status}`]),
    };
    const version: Step = {
      id: 'version',
      what: 'GET /api/version',
      request: (ctx) => get(ctx, `${api}version`),
      expect: (res) => (res.status === 200 && pyJson(res)?.server !== undefined ? [] : ['no `server` version shown']),
    };
    const login: Step = {
      id: 'login',
      what: 'POST /api/login {"passive": true}',
      request: (ctx) => post(ctx, `${api}login`, '{"passive": true}'),
      expect: (res) => (refused(res) ? ['shows "You are not allowed to access to OctoPrint with the configured API key."'] : []),
    };
    const profiles: Step = {
      id: 'printerprofiles',
      what: 'GET /api/printerprofiles',
      request: (ctx) => get(ctx, `${api}printerprofiles`),
      expect: (res) =>
        res.status !== 200 ? [`status ${res.status}: no printer name/model`] : missingKeys(pyJson(res), ['profiles']).map((k) => `KeyError on ${k}`),
    };
    return { name: 'Cura OctoPrint test', steps: [probe, settingsKey, printer, job, settings, version, login, profiles] };
  }

  const folder = stripSlashes(o.folder ?? '');
  const full = folder ? `${folder}/${jobName(o)}` : jobName(o);
  const slash = full.lastIndexOf('/');
  const inUpload = !o.selectAfterUpload;
  const part = (name: string, body: BodyPart, type: string, filename?: string): QtPart => ({
    disposition: `form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}`,
    contentType: type,
    body,
  });
  const parts: QtPart[] = [
    part('path', Buffer.from(slash < 0 ? '' : full.slice(0, slash), 'utf8'), 'text/plain'),
    part('file', o.content ?? SAMPLE_GCODE, 'application/octet-stream', `${full.slice(slash + 1)}.gcode`),
  ];
  if (inUpload && autoPrint) parts.push(part('select', Buffer.from('true'), 'text/plain'), part('print', Buffer.from('true'), 'text/plain'));
  const upload: Step = {
    id: 'upload',
    what: 'POST /api/files/local (multipart path, file, [select, print])',
    request: (ctx) =>
      qtRequest({
        method: 'POST',
        target: `${api}files/local`,
        host: ctx.host,
        raw: [['X-Api-Key', key], ['User-Agent', ua]],
        multipart: { parts, boundary: o.boundary ?? qtBoundary() },
      }),
    expect: (res) => {
      if (refused(res)) return ['shows "You are not allowed to upload files to OctoPrint with the configured API key."'];
      if (res.status === 409) return ['shows "Can\'t store the print job with the same name as the one that is currently printing."'];
      // Only an answer typed exactly text/plain (no charset) has its body shown.
      if (res.status >= 400) {
        return [header(res, 'Content-Type') === 'text/plain' ? `shows "${text(res).slice(0, 100)}"` : 'shows "OctoPrint responded with an unknown error"'];
      }
      const location = header(res, 'Location');
      if (location?.includes('api/')) return [];
      return [`Location ${JSON.stringify(location)} lacks "api/": split("api/")[1] raises, the upload never completes`];
    },
  };
  const select: Step = {
    id: 'select',
    what: 'POST <Location path> {"command": "select", "print": true}',
    request: (ctx) => {
      const location = ctx.answers.upload && header(ctx.answers.upload, 'Location');
      if (inUpload || !autoPrint || !location) return undefined;
      return post(ctx, `${api}${location.split('api/')[1]}`, '{"command": "select", "print": true}');
    },
    expect: (res) => {
      if (refused(res)) return ['shows "You are not allowed to start print jobs on OctoPrint with the configured API key."'];
      return res.status >= 400 ? [`status ${res.status}: error message shown`] : [];
    },
  };
  // "Upload" without print skips the printer-state gate; it is still polled.
  return { name: `Cura OctoPrint ${action}`, steps: [printer, job, upload, select] };
}

/** MoonrakerOutputDevice: /server/info must say klippy_state ready to print; form file, root, [path], [print]. */
export function curaMoonraker(action: Exclude<Action, 'test'>, o: CuraOpts): Transcript {
  const base = (o.basePath ?? '/').replace(/\/?$/, '/');
  const startPrint = action === 'upload-and-print';
  const raw = (): Array<[string, string]> => [
    ['User-Agent', o.userAgent ?? 'Cura Plugin Moonraker'],
    ['Accept', 'application/json, text/plain'],
    ['Connection', 'keep-alive'],
    ...(o.apiKey ? ([['X-API-Key', o.apiKey]] as Array<[string, string]>) : []),
  ];
  // Qt's errorString carries the reason phrase; the body is never shown.
  const failed = (res: WireResponse) =>
    res.status >= 400 ? [`shows "Uploading to Moonraker at <url> was not successful. … server replied: ${res.reason}"`] : [];
  const info: Step = {
    id: 'info',
    what: 'GET /server/info',
    request: (ctx) => qtRequest({ method: 'GET', target: `${base}server/info`, host: ctx.host, raw: raw() }),
    expect: (res) => {
      const f = failed(res);
      if (f.length) return f;
      const state = (pyJson(res)?.result as Record<string, unknown> | undefined)?.klippy_state;
      if (state === undefined) return ['KeyError on result.klippy_state'];
      return startPrint && state !== 'ready' ? [`retries 20 times, then shows "The status of the printer is '${String(state)}'"`] : [];
    },
  };
  const boundary = o.boundary ?? qtBoundary();
  const parts: QtPart[] = [
    {
      disposition: `form-data; name="file"; filename="${jobName(o)}.gcode"`,
      contentType: 'application/octet-stream',
      body: o.content ?? SAMPLE_GCODE,
    },
    { disposition: 'form-data; name="root"', body: Buffer.from('gcodes') },
  ];
  const folder = stripSlashes(o.folder ?? '');
  if (folder) parts.push({ disposition: 'form-data; name="path"', body: Buffer.from(folder, 'utf8') });
  if (startPrint) parts.push({ disposition: 'form-data; name="print"', body: Buffer.from('true') });
  const upload: Step = {
    id: 'upload',
    what: 'POST /server/files/upload (multipart file, root, [path], [print])',
    request: (ctx) =>
      qtRequest({
        method: 'POST',
        target: `${base}server/files/upload`,
        host: ctx.host,
        raw: [...raw(), ['Content-Type', `multipart/form-data; boundary="${boundary}"`]],
        multipart: { parts, boundary },
      }),
    expect: failed,
  };
  return { name: `Cura Moonraker ${action}`, steps: [info, upload] };
}
