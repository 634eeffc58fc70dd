// The farm as a PrusaLink host for PrusaSlicer 2.6+ and OrcaSlicer: the storage list (the farm's groups and printers,
// shown by the slicer as a dropdown) and the PUT upload. The version check is the OctoPrint host's /api/version.
import { requireAuth } from '../http/middleware/auth-context.js';
import { errorDocs } from '../http/route-docs.js';
import { routeDefiner } from '../http/route.js';
import { tooLarge } from '../files/url-download.js';
import { encodeSegments, segmentsAfter } from './raw-path.js';
import { SLICER_SCOPE, SLICER_TAG } from './slicer.schemas.js';
import type { SlicerRouteDeps } from './octoprint-host.routes.js';
import { withDocs } from '../http/with-docs.js';
import { prusalinkHostDocs } from './prusalink-host.docs.js';

const defineRoute = routeDefiner<SlicerRouteDeps>();

/** RFC 8941 booleans as PrusaSlicer sends them: `?1` is true. */
const sfTrue = (value: string | undefined): boolean => value?.trim() === '?1';

export const prusalinkHostRoutes = withDocs(prusalinkHostDocs, [
  defineRoute({
    method: 'GET',
    path: '/api/v1/storage',
    summary: 'PrusaLink host: where uploads can go (the queue, each group, each printer)',
    description:
      'PrusaSlicer shows the names as "Upload to storage"; the path is the folder the upload goes to. free_space is the ' +
      'room left on the farm\'s disk above the reserve kept for the database.',
    tag: SLICER_TAG,
    auth: SLICER_SCOPE,
    responses: { 200: { description: '{ storage_list: [...] } (storage_list first: PrusaSlicer reads only the first key)' }, ...errorDocs(403) },
    async handle(ctx, _input, deps) {
      const space = await deps.storage.space();
      // Never zero: PrusaSlicer would drop every entry and refuse to upload; a full disk is answered on the upload itself.
      const free = Math.max(1, space.freeBytes - space.reserveBytes);
      const entry = (path: string, name: string) => ({ type: 'LOCAL', path, name, available: true, read_only: false, free_space: free });
      ctx.body = {
        storage_list: [
          entry('/local', 'Farm queue (any printer)'),
          ...(await deps.slicerUploads.groups()).map((g) => entry(`/${encodeSegments(['group', g])}`, `Group ${g}`)),
          ...(await deps.slicerUploads.printers()).map((p) => entry(`/${encodeSegments(['printer', p.name])}`, `Printer ${p.name}`)),
        ],
      };
    },
  }),

  defineRoute({
    method: 'PUT',
    path: '/api/v1/files/*path',
    summary: 'PrusaLink host: upload the body to /api/v1/files/<storage>/<percent-encoded path>',
    description:
      'The body is the G-code, streamed into the store. `Print-After-Upload: ?1` queues a job; without it the file is only ' +
      'stored. `Overwrite` is accepted and has no effect (the farm keeps files by content).',
    tag: SLICER_TAG,
    auth: SLICER_SCOPE,
    responses: { 201: { description: 'Stored (and queued with Print-After-Upload)' }, ...errorDocs(400, 403, 413, 415, 422, 507) },
    async handle(ctx, _input, deps) {
      const caller = requireAuth(ctx);
      const segments = segmentsAfter(ctx.path, '/api/v1/files/');
      const storage = segments[0] === 'local' || segments[0] === 'usb' ? segments.slice(1) : segments;
      const name = storage.pop() ?? '';
      // Known before a byte is read: a file over the limit is refused before the slicer sends it (Expect: 100-continue).
      const length = Number(ctx.get('Content-Length') || NaN);
      if (Number.isFinite(length) && length > deps.slicerUploads.maxFileBytes) throw tooLarge('file', deps.slicerUploads.maxFileBytes, length);
      // So is one the disk cannot hold above the reserve kept for the database.
      if (Number.isFinite(length)) await deps.slicerUploads.admitAnnounced(length);
      const result = await deps.slicerUploads.fromBody(ctx.req, {
        api: 'prusalink',
        keyId: caller.keyId,
        folder: storage.join('/'),
        fileName: name,
        print: sfTrue(ctx.get('Print-After-Upload') || undefined),
      });
      ctx.status = 201;
      ctx.set('Location', `/api/v1/files/local/${encodeSegments([...result.target.folders, result.target.fileName])}`);
      ctx.body = { file_id: result.file.id, job_ids: result.jobIds };
    },
  }),
]);
