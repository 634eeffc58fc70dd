// /v1/webhooks: manage receivers, send a test delivery, read delivery history and retry a delivery (all webhooks:write).
import { errorDocs } from '../http/route-docs.js';
import { listResponseSchema } from '../http/list-query.js';
import type { ListQuery } from '../storage/list-page.js';
import type { HttpDeps } from '../http/http-deps.js';
import { routeDefiner } from '../http/route.js';
import { deliveryRecordSchema } from './delivery-record.js';
import {
  DELIVERY_LIST,
  WEBHOOK_LIST,
  WebhookCreateBody,
  webhookCreatedSchema,
  webhookRecordSchema,
  webhookTestResultSchema,
  WebhookUpdateBody,
  type WebhookCreate,
  type WebhookUpdate,
} from './webhooks.schemas.js';
import {
  createWebhook,
  getDeliveryRecord,
  getWebhook,
  listDeliveries,
  listWebhooks,
  patchWebhook,
  removeWebhook,
  retryDelivery,
  testWebhook,
  toWebhookRecord,
} from './webhooks.service.js';
import type { WebhookDeps } from './webhooks.service.js';
import { withDocs } from '../http/with-docs.js';
import { webhookDocs } from './webhooks.docs.js';

/** What these routes' handlers use from the program's deps. */
export type WebhookRouteDeps = HttpDeps & WebhookDeps;
const defineRoute = routeDefiner<WebhookRouteDeps>();

const TAG = 'Webhooks';
const auth = { scope: 'webhooks:write' };

export const webhookRoutes = withDocs(webhookDocs, [
  defineRoute<unknown, ListQuery>({
    method: 'GET',
    path: '/v1/webhooks',
    summary: 'List webhooks',
    tag: TAG,
    auth,
    list: WEBHOOK_LIST,
    responses: { 200: { description: 'A page of webhooks', schema: listResponseSchema(webhookRecordSchema) }, ...errorDocs(400, 403) },
    async handle(ctx, { query }, deps) {
      ctx.body = await listWebhooks(deps.db, query, deps.clock.now());
    },
  }),
  defineRoute<WebhookCreate>({
    method: 'POST',
    path: '/v1/webhooks',
    summary: 'Subscribe a receiver to events',
    description: 'Without `secret` the server generates one and returns it in this response only (field `secret`).',
    tag: TAG,
    auth,
    body: WebhookCreateBody,
    idempotent: true,
    responses: {
      201: { description: 'The created webhook', schema: webhookCreatedSchema },
      ...errorDocs(400, 403),
      403: { description: 'insufficient_permissions, or quota_exceeded: the install has 100 webhooks already' },
    },
    async handle(ctx, { body }, deps) {
      const { row, generatedSecret } = await createWebhook(deps, body);
      ctx.status = 201;
      ctx.body = { ...toWebhookRecord(row, deps.clock.now()), ...(generatedSecret ? { secret: generatedSecret } : {}) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/webhooks/:id',
    summary: 'Get a webhook',
    tag: TAG,
    auth,
    responses: { 200: { description: 'The webhook', schema: webhookRecordSchema }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      ctx.body = toWebhookRecord(await getWebhook(deps.db, params.id as string), deps.clock.now());
    },
  }),
  defineRoute<WebhookUpdate>({
    method: 'PATCH',
    path: '/v1/webhooks/:id',
    summary: 'Update a webhook (a new secret signs beside the old one for 24 hours)',
    tag: TAG,
    auth,
    body: WebhookUpdateBody,
    responses: { 200: { description: 'The whole updated webhook', schema: webhookRecordSchema }, ...errorDocs(400, 403, 404) },
    async handle(ctx, { params, body }, deps) {
      ctx.body = toWebhookRecord(await patchWebhook(deps, params.id as string, body), deps.clock.now());
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/webhooks/:id',
    summary: 'Delete a webhook and its delivery history',
    tag: TAG,
    auth,
    responses: { 204: { description: 'Deleted' }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      await removeWebhook(deps.db, params.id as string);
      ctx.status = 204;
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/webhooks/:id/test',
    summary: 'Send a webhook.test delivery now and report the outcome',
    tag: TAG,
    auth,
    responses: { 200: { description: 'The outcome of the delivery', schema: webhookTestResultSchema }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      ctx.body = await testWebhook(deps, params.id as string);
    },
  }),
  defineRoute<unknown, ListQuery>({
    method: 'GET',
    path: '/v1/webhooks/:id/deliveries',
    summary: 'Delivery history of a webhook (extension)',
    tag: TAG,
    auth,
    list: DELIVERY_LIST,
    responses: { 200: { description: 'A page of deliveries, newest first', schema: listResponseSchema(deliveryRecordSchema) }, ...errorDocs(400, 403, 404) },
    async handle(ctx, { params, query }, deps) {
      ctx.body = await listDeliveries(deps.db, params.id as string, query);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/webhooks/:id/deliveries/:delivery_id',
    summary: 'One delivery of a webhook (extension)',
    tag: TAG,
    auth,
    responses: { 200: { description: 'The delivery', schema: deliveryRecordSchema }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      await getWebhook(deps.db, params.id as string);
      ctx.body = await getDeliveryRecord(deps.db, params.id as string, params.delivery_id as string);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/webhooks/:id/deliveries/:delivery_id/retry',
    summary: 'Send a delivery again now (extension)',
    tag: TAG,
    auth,
    responses: { 202: { description: 'The delivery, pending and due now', schema: deliveryRecordSchema }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      ctx.status = 202;
      ctx.body = await retryDelivery(deps, params.id as string, params.delivery_id as string);
    },
  }),
]);
