// /v1/jobs/:id/snapshots: the camera pictures taken of a job (start, progress steps, end) and each picture's JPEG.
import { errorDocs } from '../http/route-docs.js';
import type { HttpDeps } from '../http/http-deps.js';
import { routeDefiner } from '../http/route.js';
import type { JsonSchema } from '../http/validation.js';
import type { JobSnapshots } from './job-snapshots.service.js';

export type JobSnapshotRouteDeps = HttpDeps & { jobSnapshots: JobSnapshots };
const defineRoute = routeDefiner<JobSnapshotRouteDeps>();

const TAG = 'Jobs';
const read = { scope: 'jobs:read' };

const snapshotSchema: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'snp_...' },
    job_id: { type: 'string' },
    camera_id: { type: 'string', description: 'The camera that took it (it may have been removed since)' },
    moment: { type: 'string', enum: ['start', 'progress', 'completed', 'failed', 'cancelled'] },
    progress: { type: ['number', 'null'], description: 'Percent when taken: 0 at the start, the step for progress pictures, null at the end' },
    size: { type: 'integer', description: 'Bytes of the JPEG' },
    taken_at: { type: 'string', format: 'date-time' },
    url: { type: 'string', description: 'Where the JPEG is served' },
  },
};

const listSchema: JsonSchema = {
  type: 'object',
  properties: { data: { type: 'array', items: snapshotSchema, description: 'Oldest first' } },
  examples: [
    {
      data: [
        {
          id: 'snp_7Qm2xT9kLp0Zr4Vb8NcA',
          job_id: 'job_2Wd8sK1mQ7ZrT0bYc3Vx',
          camera_id: 'cam_4fQ9c2LmZx81PqR0aT7u',
          moment: 'start',
          progress: 0,
          size: 48213,
          taken_at: '2026-11-28T02:00:00.000Z',
          url: '/v1/jobs/job_2Wd8sK1mQ7ZrT0bYc3Vx/snapshots/snp_7Qm2xT9kLp0Zr4Vb8NcA',
        },
      ],
    },
  ],
};

export const jobSnapshotRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/jobs/:id/snapshots',
    summary: "A job's camera pictures",
    description:
      "Taken by the printer's cameras that have job_pictures on: at the start, every job_picture_step percent, and at the end (before the end event is sent). " +
      'Kept within a per-job and a total size budget (the oldest go first) and removed with the job\'s file by the file retention policy.',
    tag: TAG,
    auth: read,
    responses: { 200: { description: '`data`: the pictures, oldest first', schema: listSchema }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      ctx.body = { data: await deps.jobSnapshots.list(params.id as string) };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/v1/jobs/:id/snapshots/:snapshot_id',
    summary: 'One picture of a job (image/jpeg)',
    description: 'The JPEG as the camera gave it; rotation and flip are applied by the dashboard, as for the live picture.',
    tag: TAG,
    auth: read,
    responses: { 200: { description: 'The picture', schema: { type: 'string', format: 'binary', description: 'image/jpeg', examples: ['(JPEG bytes)'] } }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      const jpeg = await deps.jobSnapshots.data(params.id as string, params.snapshot_id as string);
      ctx.type = 'image/jpeg';
      // A stored picture never changes.
      ctx.set('Cache-Control', 'private, max-age=86400, immutable');
      ctx.body = jpeg;
    },
  }),
];
