// GET /v1/files, /v1/files/:id and /v1/files/:id/thumbnail (extensions): the stored G-code files, one file's record and
// its embedded thumbnail.
import { errorDocs } from '../http/route-docs.js';
import { listResponseSchema } from '../http/list-query.js';
import type { ListQuery } from '../storage/list-page.js';
import type { HttpDeps } from '../http/http-deps.js';
import { routeDefiner } from '../http/route.js';
import type { JsonSchema } from '../http/validation.js';
import { FileListItemSchema, FileRecordSchema, FILES_LIST_SPEC } from './files.schemas.js';
import type { FilesService } from './files.service.js';
import { withDocs } from '../http/with-docs.js';
import { fileDocs } from './files.docs.js';

/** What these routes' handlers use from the program's deps. */
export type FileRouteDeps = HttpDeps & { files: FilesService };
const defineRoute = routeDefiner<FileRouteDeps>();

const TAG = 'Files';
const read = { scope: 'jobs:read' };
/** A file's content never changes (it is addressed by its hash), so its thumbnail may be cached for a year. */
const THUMBNAIL_CACHE = 'private, max-age=31536000, immutable';

export const fileRoutes = withDocs(fileDocs, [
  defineRoute<unknown, ListQuery>({
    method: 'GET',
    path: '/v1/files',
    summary: 'List stored G-code files, newest upload first, with how many jobs each fed',
    description:
      'Every file uploaded or downloaded (a job create, or a slicer upload without print), pruned ones included with ' +
      '`deleted_at` set (`deleted=false` lists only what can still be queued with POST /v1/jobs `file_id`). `q` matches ' +
      'part of original_name; `from`/`to` bound created_at.',
    tag: TAG,
    auth: read,
    list: FILES_LIST_SPEC,
    responses: {
      200: { description: 'A page of files', schema: listResponseSchema(FileListItemSchema as unknown as JsonSchema) },
      ...errorDocs(400, 403),
    },
    async handle(ctx, { query }, deps) {
      ctx.body = await deps.files.listFiles(query);
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/v1/files/:id',
    summary: 'A stored G-code file: size, hash and what its slicer wrote (time, filament, nozzle, layers, thumbnail)',
    tag: TAG,
    auth: read,
    responses: { 200: { description: 'The file record', schema: FileRecordSchema as unknown as JsonSchema }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      ctx.body = await deps.files.getFile(params.id as string);
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/v1/files/:id/thumbnail',
    summary: 'The largest thumbnail the slicer embedded in the file (image/png or image/jpeg)',
    description:
      'Answers 304 to a matching If-None-Match. 404 when the file has no PNG or JPEG thumbnail; 410 file_deleted when the file was pruned (a job record then has thumbnail_url null).',
    tag: TAG,
    auth: read,
    responses: { 200: { description: 'The image bytes, with ETag and Cache-Control' }, ...errorDocs(403, 404, 410) },
    async handle(ctx, { params }, deps) {
      const thumb = await deps.files.getThumbnail(params.id as string);
      const etag = `"${thumb.file.sha256.slice(0, 32)}-thumb"`;
      ctx.set('ETag', etag);
      ctx.set('Cache-Control', THUMBNAIL_CACHE);
      const match = ctx.get('If-None-Match');
      if (match && match.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
        ctx.status = 304;
        return;
      }
      ctx.type = thumb.contentType;
      ctx.body = thumb.data;
    },
  }),
]);
