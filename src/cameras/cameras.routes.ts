// /v1/cameras and /v1/printers/:id/cameras: camera records, the current picture and the live stream.
import { errorDocs } from '../http/route-docs.js';
import { listResponseSchema } from '../http/list-query.js';
import type { HttpDeps } from '../http/http-deps.js';
import { routeDefiner } from '../http/route.js';
import type { JsonSchema } from '../http/validation.js';
import type { ListQuery } from '../storage/list-page.js';
import { serveViewer, VIEWER_CONTENT_TYPE } from './camera-viewer.js';
import { CameraCreateBody, CameraRecordSchema, CameraUpdateBody, type CameraCreateInput, type CameraUpdateInput } from './cameras.schemas.js';
import { CAMERA_LIST_SPEC, type CamerasService } from './cameras.service.js';

export type CameraRouteDeps = HttpDeps & { cameras: CamerasService };
const defineRoute = routeDefiner<CameraRouteDeps>();

const TAG = 'Cameras';
const read = { scope: 'printers:read' };
const write = { scope: 'printers:write' };
const record = CameraRecordSchema as unknown as JsonSchema;
const jpeg: JsonSchema = { type: 'string', format: 'binary', description: 'image/jpeg', examples: ['(JPEG bytes)'] };
const listSchema = (): JsonSchema => ({ ...listResponseSchema(record), examples: [{ data: CameraRecordSchema.examples, pagination: { page: 1, per_page: 20, total: 1, total_pages: 1 } }] });
const unavailable = { 502: { description: 'camera_unavailable: the camera gave no picture; details: the fault (unreachable, timeout, unauthorized, http_error, not_a_camera, garbage, frame_too_large, stalled, closed, forbidden)' } };

export const cameraRoutes = [
  defineRoute<unknown, ListQuery>({
    method: 'GET',
    path: '/v1/cameras',
    summary: 'List cameras with their state',
    description: 'Every camera of every printer; filter with printer_id. `state` is how this node sees the camera now.',
    tag: TAG,
    auth: read,
    list: CAMERA_LIST_SPEC,
    responses: { 200: { description: '`data` (cameras) and `pagination`', schema: listSchema() }, ...errorDocs(400, 403) },
    async handle(ctx, { query }, deps) {
      ctx.body = await deps.cameras.list(query);
    },
  }),

  defineRoute<CameraCreateInput>({
    method: 'POST',
    path: '/v1/printers/:id/cameras',
    summary: "Add a camera to a printer",
    description:
      'stream_url (MJPEG) and/or snapshot_url (JPEG), http or https. A user name and password in a URL are sealed at rest and never returned (has_stream_credentials). ' +
      'Addresses follow the file_url rules: link-local and cloud metadata addresses are refused (422 camera_url_forbidden), also after a redirect or DNS answer when connecting.',
    tag: TAG,
    auth: write,
    body: CameraCreateBody as unknown as JsonSchema,
    idempotent: true,
    responses: { 201: { description: 'The new camera', schema: record }, ...errorDocs(400, 403, 404, 422) },
    async handle(ctx, { params, body }, deps) {
      ctx.status = 201;
      ctx.body = await deps.cameras.create(params.id as string, body);
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/v1/cameras/:id',
    summary: 'One camera with its state',
    description: '`state.status`: idle (nobody watching, no connection), connecting, live, or error with `state.error` saying why in words.',
    tag: TAG,
    auth: read,
    responses: { 200: { description: 'The camera', schema: record }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      ctx.body = await deps.cameras.get(params.id as string);
    },
  }),

  defineRoute<CameraUpdateInput>({
    method: 'PATCH',
    path: '/v1/cameras/:id',
    summary: 'Change a camera',
    description: 'A new stream_url (or enabled: false) cuts the live viewers; they reconnect to the new address. null clears a URL (one must remain).',
    tag: TAG,
    auth: write,
    body: CameraUpdateBody as unknown as JsonSchema,
    responses: { 200: { description: 'The whole updated camera', schema: record }, ...errorDocs(400, 403, 404, 422) },
    async handle(ctx, { params, body }, deps) {
      ctx.body = await deps.cameras.update(params.id as string, body);
    },
  }),

  defineRoute({
    method: 'DELETE',
    path: '/v1/cameras/:id',
    summary: 'Remove a camera',
    description: 'Its live viewers are cut and its upstream connection closed.',
    tag: TAG,
    auth: write,
    responses: { 204: { description: 'Removed' }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      await deps.cameras.remove(params.id as string);
      ctx.status = 204;
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/v1/cameras/:id/snapshot',
    summary: 'The current picture (image/jpeg)',
    description:
      "The live stream's last frame when someone is watching, else the snapshot_url's picture, else the stream's next frame. " +
      '409 invalid_state when the camera is disabled; 502 camera_unavailable with the reason when it gives no picture.',
    tag: TAG,
    auth: read,
    responses: { 200: { description: 'The picture', schema: jpeg }, ...errorDocs(403, 404, 409), ...unavailable },
    async handle(ctx, { params }, deps) {
      const picture = await deps.cameras.snapshot(params.id as string);
      ctx.type = 'image/jpeg';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = picture;
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/v1/cameras/:id/stream',
    summary: 'The live stream (multipart/x-mixed-replace)',
    description:
      'One upstream connection per camera however many watch; a slow viewer gets fewer frames. Usable as the `src` of an `<img>` element. ' +
      'The upstream closes a few seconds after the last viewer leaves. 409 invalid_state without stream_url or when disabled.',
    tag: TAG,
    auth: read,
    responses: { 200: { description: VIEWER_CONTENT_TYPE, schema: { type: 'string', format: 'binary', examples: ['(multipart JPEG frames)'] } }, ...errorDocs(403, 404, 409) },
    async handle(ctx, { params }, deps) {
      const feed = await deps.cameras.liveFeed(params.id as string);
      if (ctx.method === 'HEAD') {
        ctx.status = 200;
        ctx.type = VIEWER_CONTENT_TYPE;
        ctx.body = '';
        return;
      }
      const headers = Object.fromEntries(Object.entries(ctx.response.headers).map(([k, v]) => [k, String(v)]));
      // Written by hand for as long as the viewer stays; Koa must not answer it.
      ctx.respond = false;
      await serveViewer(ctx.res, feed, headers);
    },
  }),
];
