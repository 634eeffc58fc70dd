// The farm as an OctoPrint host for slicers (PrusaSlicer, OrcaSlicer, Cura's OctoPrint plugin, PrusaSlicer 2.5's
// PrusaLink): what their "test" and "upload" ask, answered by the farm's queue. Not OctoPrint: no printer behind it.
import type Koa from 'koa';
import { badRequest, notFound } from '../errors.js';
import { requireAuth } from '../http/middleware/auth-context.js';
import { errorDocs } from '../http/route-docs.js';
import { routeDefiner } from '../http/route.js';
import type { HttpDeps } from '../http/http-deps.js';
import { VERSION } from '../version.js';
import { encodeSegments, requestOrigin, segmentsAfter } from './raw-path.js';
import { FileCommandBody, octoprintUploadDoc, SLICER_SCOPE, SLICER_TAG } from './slicer.schemas.js';
import type { SlicerUploadResult, SlicerUploads } from './slicer-uploads.service.js';
import { fieldText, slicerFileName } from './slicer-form.js';
import { withDocs } from '../http/with-docs.js';
import { octoprintHostDocs } from './octoprint-host.docs.js';

export type SlicerRouteDeps = HttpDeps & { slicerUploads: SlicerUploads };
const defineRoute = routeDefiner<SlicerRouteDeps>();

/** The OctoPrint release whose API these answers follow (Cura reads `server` to pick features). */
export const EMULATED_OCTOPRINT = '1.9.3';

const ok = (description: string) => ({ 200: { description } });

/** Idle in every flag Cura reads: the farm always takes a job (its queue decides when a printer is free). */
const IDLE_FLAGS = { operational: true, ready: true, printing: false, paused: false, pausing: false, cancelling: false, error: false, closedOrError: false };

/** OctoPrint's answer to an upload: where the file now lives (Cura follows `Location` for its select command). */
function uploadAnswer(ctx: Koa.Context, result: SlicerUploadResult, folder: string[]): void {
  // The Location carries the file's id, so a later select command finds this very file whatever its name.
  const path = encodeSegments([result.file.id, ...folder, result.target.fileName]);
  const resource = `${requestOrigin(ctx)}/api/files/local/${path}`;
  ctx.status = 201;
  ctx.set('Location', resource);
  ctx.body = {
    done: true,
    files: {
      local: {
        name: result.target.fileName,
        origin: 'local',
        path: [...folder, result.target.fileName].join('/'),
        refs: { resource, download: `${requestOrigin(ctx)}/v1/files/${result.file.id}` },
      },
    },
    effectivePrint: result.jobIds.length > 0,
    effectiveSelect: result.jobIds.length > 0,
    // Ours: what the upload became on the farm.
    printfarm: { file_id: result.file.id, job_ids: result.jobIds },
  };
}

export const octoprintHostRoutes = withDocs(octoprintHostDocs, [
  defineRoute({
    method: 'GET',
    path: '/api/version',
    summary: 'OctoPrint/PrusaLink host: version (a slicer\'s "Test")',
    description:
      '`text` starts with "OctoPrint", which PrusaSlicer and OrcaSlicer accept for both the OctoPrint and the PrusaLink host ' +
      'type; `capabilities.upload-by-put` makes PrusaSlicer 2.6+ use PUT /api/v1/files.',
    tag: SLICER_TAG,
    auth: SLICER_SCOPE,
    responses: { ...ok('The version'), ...errorDocs(403) },
    handle(ctx) {
      ctx.body = {
        api: '0.1',
        server: EMULATED_OCTOPRINT,
        text: `OctoPrint ${EMULATED_OCTOPRINT} (printfarm ${VERSION}: uploads go to the farm's queue)`,
        original: `printfarm ${VERSION}`,
        capabilities: { 'upload-by-put': true },
      };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/settings',
    summary: 'OctoPrint host: settings (Cura checks the key with it)',
    tag: SLICER_TAG,
    auth: SLICER_SCOPE,
    responses: { ...ok('Settings without plugins, SD card or webcam'), ...errorDocs(403) },
    handle(ctx) {
      ctx.body = { api: { enabled: true }, feature: { sdSupport: false, temperatureGraph: false }, webcam: { webcamEnabled: false, streamUrl: '' }, plugins: {} };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/api/login',
    summary: 'OctoPrint host: passive login (Cura asks who the key is)',
    tag: SLICER_TAG,
    auth: SLICER_SCOPE,
    responses: { ...ok('The key as a user'), ...errorDocs(403) },
    handle(ctx) {
      const caller = requireAuth(ctx);
      ctx.body = { name: caller.keyName ?? 'slicer', active: true, admin: false, user: true, groups: ['users'], permissions: [] };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/printer',
    summary: 'OctoPrint host: printer state (always ready: the farm queues)',
    tag: SLICER_TAG,
    auth: SLICER_SCOPE,
    responses: { ...ok('Operational and idle'), ...errorDocs(403) },
    handle(ctx) {
      ctx.body = {
        state: { text: 'Operational', flags: IDLE_FLAGS },
        // No one printer stands behind the farm: zero readings, never a made-up temperature.
        temperature: { tool0: { actual: 0, target: 0, offset: 0 }, bed: { actual: 0, target: 0, offset: 0 } },
        sd: { ready: false },
      };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/job',
    summary: 'OctoPrint host: current job (none: the farm queues)',
    tag: SLICER_TAG,
    auth: SLICER_SCOPE,
    responses: { ...ok('No job'), ...errorDocs(403) },
    handle(ctx) {
      ctx.body = {
        state: 'Operational',
        job: { file: { name: null, origin: null, path: null, size: null, date: null }, estimatedPrintTime: null, filament: null },
        progress: { completion: null, filepos: null, printTime: null, printTimeLeft: null },
      };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/api/printerprofiles',
    summary: 'OctoPrint host: printer profiles (one, the farm)',
    tag: SLICER_TAG,
    auth: SLICER_SCOPE,
    responses: { ...ok('One default profile'), ...errorDocs(403) },
    handle(ctx) {
      const axis = (speed: number) => ({ speed, inverted: false });
      ctx.body = {
        profiles: {
          _default: {
            id: '_default',
            name: 'printfarm queue',
            model: 'printfarm',
            current: true,
            default: true,
            heatedBed: true,
            extruder: { count: 1, nozzleDiameter: 0.4 },
            axes: { x: axis(6000), y: axis(6000), z: axis(200), e: axis(300) },
          },
        },
      };
    },
  }),

  defineRoute<FileCommandBody>({
    method: 'POST',
    path: '/api/files/*storage',
    summary: 'OctoPrint host: upload (multipart) into local or a storage; or Cura\'s select command on an uploaded file',
    description:
      'Multipart: `file` streamed into the store (as POST /v1/jobs), `path` read as folders (group/<name>, printer/<name>, ' +
      'x<copies>, a priority), `print=true` queues a job, otherwise the file is only stored. 201 with `Location` ' +
      '(…/api/files/local/<file id>/<path>). JSON `{"command":"select","print":true}` on that Location queues the stored ' +
      'file (204). PrusaSlicer\'s PrusaLink host type posts to /api/files/<storage> of GET /api/v1/storage.',
    tag: SLICER_TAG,
    auth: SLICER_SCOPE,
    body: FileCommandBody,
    multipart: true,
    multipartBody: octoprintUploadDoc,
    responses: {
      201: { description: 'Stored (and queued when print=true); Location names the file' },
      204: { description: 'select command done (print=true: queued)' },
      ...errorDocs(400, 403, 404, 410, 413, 415, 422, 507),
    },
    async handle(ctx, { body }, deps) {
      const caller = requireAuth(ctx);
      const segments = segmentsAfter(ctx.path, '/api/files/');
      const multipart = ctx.is('multipart/form-data') === 'multipart/form-data';
      if (!multipart) {
        // Cura: POST /api/files/local/<file id>/<folders>/<name> {"command": "select", "print": true}
        if (segments[0] !== 'local' || segments.length < 3) throw notFound(`file ${segments.slice(1).join('/') || '(none)'}`);
        if (body.command !== 'select') throw badRequest(`unknown command "${String(body.command).slice(0, 40)}": the farm takes select`);
        if (body.print === true) {
          const [fileId, ...rest] = segments.slice(1) as [string, ...string[]];
          const name = rest.pop() as string;
          await deps.slicerUploads.queueStored(fileId, { api: 'octoprint', keyId: caller.keyId, folder: rest.join('/'), fileName: name, print: true });
        }
        ctx.status = 204;
        return;
      }
      // The storage: local (the top), or a group/printer storage from PrusaLink's storage list.
      const storage = segments[0] === 'local' ? segments.slice(1) : segments;
      const result = await deps.slicerUploads.fromMultipart(ctx.req, (fields, rawName) => {
        const path = fieldText(fields, 'path');
        return {
          api: 'octoprint',
          keyId: caller.keyId,
          folder: [...storage, path].join('/'),
          fileName: slicerFileName(rawName),
          print: fieldText(fields, 'print') === 'true',
        };
      });
      uploadAnswer(ctx, result, result.target.folders);
    },
  }),
]);
