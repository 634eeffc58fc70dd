// /v1/jobs: create (JSON with file_url or file_id, or multipart with the file), list, read, update while queued, cancel.
import type Koa from 'koa';
import { requireAuth } from '../http/middleware/auth-context.js';
import { errorDocs } from '../http/route-docs.js';
import { badRequest } from '../errors.js';
import { listResponseSchema } from '../http/list-query.js';
import type { ListQuery } from '../storage/list-page.js';
import type { HttpDeps } from '../http/http-deps.js';
import { routeDefiner } from '../http/route.js';
import { bodyToCreateFields, formToCreateFields, jsonFileSource } from './job-form.js';
import {
  JobCreateBody,
  jobCreateMultipartDoc,
  jobCreateResponseSchema,
  jobRecordSchema,
  JOBS_LIST_SPEC,
  JobUpdateBody,
} from './jobs.schemas.js';
import type { JobsService } from './jobs.service.js';
import type { JobFiles } from './job-files.js';
import { withDocs } from '../http/with-docs.js';
import { jobDocs } from './jobs.docs.js';

/** What these routes' handlers use from the program's deps. */
export type JobRouteDeps = HttpDeps & { jobs: JobsService; jobFiles: JobFiles };
const defineRoute = routeDefiner<JobRouteDeps>();

const TAG = 'Jobs';
const read = { scope: 'jobs:read' };
const write = { scope: 'jobs:write' };

const isMultipart = (ctx: Koa.Context): boolean => ctx.is('multipart/form-data') === 'multipart/form-data';

export const jobRoutes = withDocs(jobDocs, [
  defineRoute<unknown, ListQuery>({
    method: 'GET',
    path: '/v1/jobs',
    summary: 'List jobs',
    description: 'Filters combine; `from`/`to` bound created_at (a date alone is the whole UTC day); sort by priority follows urgency.',
    tag: TAG,
    auth: read,
    list: JOBS_LIST_SPEC,
    responses: { 200: { description: 'A page of jobs', schema: listResponseSchema(jobRecordSchema) }, ...errorDocs(400, 403) },
    async handle(ctx, { query }, deps) {
      ctx.body = await deps.jobs.list(query);
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/v1/jobs/:id',
    summary: 'Get a job (live progress while printing)',
    tag: TAG,
    auth: read,
    responses: { 200: { description: 'The job', schema: jobRecordSchema }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      ctx.body = await deps.jobs.get(params.id!);
    },
  }),

  defineRoute<JobCreateBody>({
    method: 'POST',
    path: '/v1/jobs',
    summary: 'Queue a print: JSON with file_url (downloaded before the answer) or file_id (a stored file), or multipart with the file',
    description:
      'The file is validated (422 file_invalid) and its slicer metadata fills estimated_duration, material.estimated_usage ' +
      'and material.type (when the request names none). `copies` creates one batch of jobs. JSON names exactly one of ' +
      'file_url and file_id (400 for both or neither); file_id queues a file from GET /v1/files as stored: 404 when ' +
      'unknown, 410 file_deleted once pruning removed it (upload it again).',
    tag: TAG,
    auth: write,
    body: JobCreateBody,
    multipart: true,
    multipartBody: jobCreateMultipartDoc,
    idempotent: true,
    responses: {
      201: { description: '{ success: true, data: <the first job, with job_ids> }', schema: jobCreateResponseSchema },
      ...errorDocs(400, 403, 404, 410, 413, 422),
    },
    async handle(ctx, { body }, deps) {
      const caller = requireAuth(ctx);
      let created;
      if (isMultipart(ctx)) {
        const upload = await deps.jobFiles.fromMultipart(ctx.req);
        if (!upload.file) throw badRequest('file: is required (a multipart field named "file" holding the G-code)');
        created = await deps.jobs.create(formToCreateFields(upload.fields), upload.file, null, caller.keyId);
      } else {
        const source = jsonFileSource(body);
        const fields = bodyToCreateFields(body);
        const file = source.kind === 'url' ? await deps.jobFiles.fromUrl(source.url) : await deps.jobFiles.fromStored(source.fileId);
        created = await deps.jobs.create(fields, file, source.kind === 'url' ? source.url : null, caller.keyId);
      }
      ctx.status = 201;
      ctx.body = { success: true, data: { ...created.first, job_ids: created.jobIds } };
    },
  }),

  defineRoute<JobUpdateBody>({
    method: 'PATCH',
    path: '/v1/jobs/:id',
    summary: 'Update a job: name and tags any time; priority, printer_id, group and material while queued',
    tag: TAG,
    auth: write,
    body: JobUpdateBody,
    responses: { 200: { description: 'The whole updated job', schema: jobRecordSchema }, ...errorDocs(400, 403, 404, 409) },
    async handle(ctx, { params, body }, deps) {
      const { material, ...rest } = body;
      ctx.body = await deps.jobs.update(params.id!, {
        ...rest,
        ...(material === undefined
          ? {}
          : { material: material === null ? null : typeof material === 'string' ? { type: material } : { type: material.type, color: material.color ?? null } }),
      });
    },
  }),

  defineRoute({
    method: 'DELETE',
    path: '/v1/jobs/:id',
    summary: 'Cancel a job (a printing job gets the firmware profile’s cancel script)',
    description:
      'While the printer waits in a heat-up or dwell its firmware cannot break (Klipper), the answer is 202 with the job ' +
      'still printing and `pending_action: cancel`: it is cancelled the moment the wait ends (`job.cancelled`).',
    tag: TAG,
    auth: write,
    responses: {
      200: { description: 'The job, cancelled', schema: jobRecordSchema },
      202: { description: 'The job with pending_action cancel: cancelled when the wait ends', schema: jobRecordSchema },
      ...errorDocs(403, 404, 409),
    },
    async handle(ctx, { params }, deps) {
      const { job, pending } = await deps.jobs.cancel(params.id!);
      ctx.status = pending ? 202 : 200;
      ctx.body = job;
    },
  }),
]);
