// The farm as a Moonraker host for OrcaSlicer, PrusaSlicer and Cura's Moonraker plugin: server info, the roots (the
// queue, each group, each printer), the upload, and a print start that has nothing left to do.
import { AppError } from '../errors.js';
import { requireAuth } from '../http/middleware/auth-context.js';
import { errorDocs } from '../http/route-docs.js';
import { routeDefiner } from '../http/route.js';
import { VERSION } from '../version.js';
import { encodeSegments, requestOrigin } from './raw-path.js';
import { moonrakerUploadDoc, SLICER_SCOPE, SLICER_TAG } from './slicer.schemas.js';
import { fieldText, slicerFileName } from './slicer-form.js';
import type { SlicerRouteDeps } from './octoprint-host.routes.js';
import { withDocs } from '../http/with-docs.js';
import { moonrakerHostDocs } from './moonraker-host.docs.js';

const defineRoute = routeDefiner<SlicerRouteDeps>();

/** The root every Moonraker client sends by default: the farm's queue, any printer. */
const GCODES = 'gcodes';

export const moonrakerHostRoutes = withDocs(moonrakerHostDocs, [
  defineRoute({
    method: 'GET',
    path: '/server/info',
    summary: 'Moonraker host: server info (a slicer\'s "Test")',
    description: '`result` comes first (PrusaSlicer reads only the first key); klippy_state is ready: the farm always takes a job.',
    tag: SLICER_TAG,
    auth: SLICER_SCOPE,
    responses: { 200: { description: '{ result: { klippy_state, moonraker_version, ... } }' }, ...errorDocs(403) },
    handle(ctx) {
      ctx.body = {
        result: {
          klippy_connected: true,
          klippy_state: 'ready',
          components: ['file_manager'],
          failed_components: [],
          registered_directories: [GCODES],
          warnings: [],
          websocket_count: 0,
          moonraker_version: `printfarm-${VERSION}`,
          api_version: [1, 5, 0],
          api_version_string: '1.5.0',
        },
      };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/server/files/roots',
    summary: 'Moonraker host: roots an upload can go to (the queue, each group, each printer)',
    tag: SLICER_TAG,
    auth: SLICER_SCOPE,
    responses: { 200: { description: '{ result: [{ name, path, permissions }] }' }, ...errorDocs(403) },
    async handle(ctx, _input, deps) {
      const root = (name: string) => ({ name, path: `/${name}`, permissions: 'rw' });
      ctx.body = {
        result: [
          root(GCODES),
          ...(await deps.slicerUploads.groups()).map((g) => root(`group/${g}`)),
          ...(await deps.slicerUploads.printers()).map((p) => root(`printer/${p.name}`)),
        ],
      };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/server/files/upload',
    summary: 'Moonraker host: upload (multipart: root, path, print, file in any order)',
    description:
      '`root` is gcodes or a root of GET /server/files/roots, `path` folders as in the OctoPrint upload; print=true queues a ' +
      'job, otherwise the file is only stored. The answer has Moonraker\'s bare keys and the same in `result` (OrcaSlicer ' +
      'reads result.print_started).',
    tag: SLICER_TAG,
    auth: SLICER_SCOPE,
    multipart: true,
    multipartBody: moonrakerUploadDoc,
    responses: { 201: { description: '{ item, print_started, print_queued, action, result: {…the same} }' }, ...errorDocs(400, 403, 413, 415, 422, 507) },
    async handle(ctx, _input, deps) {
      const caller = requireAuth(ctx);
      if (ctx.is('multipart/form-data') !== 'multipart/form-data') throw new AppError(415, 'invalid_request', `send multipart/form-data (fields root, path, print, file), not ${ctx.get('Content-Type') || 'no content type'}`);
      const result = await deps.slicerUploads.fromMultipart(ctx.req, (fields, rawName) => {
        const root = fieldText(fields, 'root');
        return {
          api: 'moonraker',
          keyId: caller.keyId,
          folder: [root === GCODES ? '' : root, fieldText(fields, 'path')].join('/'),
          fileName: slicerFileName(rawName),
          print: fieldText(fields, 'print').toLowerCase() === 'true',
          plateIndex: fieldText(fields, 'plateindex') || undefined,
        };
      });
      const path = [...result.target.folders, result.target.fileName].join('/');
      const queued = result.jobIds.length > 0;
      const answer = {
        item: { path, root: GCODES, size: result.file.size, modified: Date.parse(result.file.last_used_at) / 1000, permissions: 'rw' },
        print_started: queued,
        print_queued: queued,
        action: 'create_file',
        printfarm: { file_id: result.file.id, job_ids: result.jobIds },
      };
      ctx.status = 201;
      ctx.set('Location', `${requestOrigin(ctx)}/server/files/${GCODES}/${encodeSegments([...result.target.folders, result.target.fileName])}`);
      ctx.body = { ...answer, result: answer };
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/printer/print/start',
    summary: 'Moonraker host: start a print (nothing to do: an upload with print=true already queued it)',
    tag: SLICER_TAG,
    auth: SLICER_SCOPE,
    responses: { 200: { description: '{ result: "ok" }' }, ...errorDocs(403) },
    handle(ctx) {
      requireAuth(ctx);
      ctx.body = { result: 'ok' };
    },
  }),
]);
