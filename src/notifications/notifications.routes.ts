// /v1/notifications: channels to people (email, ntfy, Discord, Slack, Telegram, Pushover) with their rules, Send test,
// the delivery log per channel, and the dashboard link messages carry (all admin:*: they hold secrets).
import { errorDocs } from '../http/route-docs.js';
import type { HttpDeps } from '../http/http-deps.js';
import { routeDefiner } from '../http/route.js';
import {
  ChannelCreateBody,
  channelListSchema,
  channelRecordSchema,
  ChannelUpdateBody,
  deliveryLogSchema,
  SettingsBody,
  settingsSchema,
  testResultSchema,
  type ChannelCreate,
  type ChannelUpdate,
  type NotificationSettingsUpdate,
} from './notifications.schemas.js';
import { createChannel, deliveryLog, getChannel, getSettings, listChannels, patchChannel, putSettings, removeChannel, sendTest, toChannelRecord, type NotificationDeps } from './notifications.service.js';

export type NotificationRouteDeps = HttpDeps & NotificationDeps;
const defineRoute = routeDefiner<NotificationRouteDeps>();
const TAG = 'Notifications';
const auth = { scope: 'admin:*' };

export const notificationRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/notifications/channels',
    summary: 'List notification channels',
    description: 'Every channel with its rule (events), quiet hours and status (ok, failing, paused with the reason, disabled). Secrets are never returned, only their names.',
    tag: TAG,
    auth,
    responses: { 200: { description: 'The channels', schema: channelListSchema }, ...errorDocs(403) },
    async handle(ctx, _input, deps) {
      ctx.body = await listChannels(deps.db);
    },
  }),
  defineRoute<ChannelCreate>({
    method: 'POST',
    path: '/v1/notifications/channels',
    summary: 'Add a notification channel',
    description: 'A channel of one kind with its settings, secrets (sealed at rest, write-only), the events it gets and optional quiet hours. Use Send test to check it.',
    tag: TAG,
    auth,
    body: ChannelCreateBody,
    responses: { 201: { description: 'The created channel', schema: channelRecordSchema }, ...errorDocs(400, 403) },
    async handle(ctx, { body }, deps) {
      ctx.status = 201;
      ctx.body = toChannelRecord(await createChannel(deps, body));
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/notifications/channels/:id',
    summary: 'Get a notification channel',
    description: 'The channel as the list shows it.',
    tag: TAG,
    auth,
    responses: { 200: { description: 'The channel', schema: channelRecordSchema }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      ctx.body = toChannelRecord(await getChannel(deps.db, params.id as string));
    },
  }),
  defineRoute<ChannelUpdate>({
    method: 'PATCH',
    path: '/v1/notifications/channels/:id',
    summary: 'Change a notification channel, or resume a paused one',
    description: 'Fields given replace the stored ones (settings and secrets as a whole). `{"paused": false}` resumes a channel the server paused; its waiting messages go out.',
    tag: TAG,
    auth,
    body: ChannelUpdateBody,
    responses: { 200: { description: 'The changed channel', schema: channelRecordSchema }, ...errorDocs(400, 403, 404) },
    async handle(ctx, { params, body }, deps) {
      ctx.body = toChannelRecord(await patchChannel(deps, params.id as string, body));
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/notifications/channels/:id',
    summary: 'Delete a notification channel',
    description: 'Its waiting messages and delivery log go with it.',
    tag: TAG,
    auth,
    responses: { 204: { description: 'Deleted' }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      await removeChannel(deps.db, params.id as string);
      ctx.status = 204;
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/notifications/channels/:id/test',
    summary: 'Send test: send a test message now and report what the service said',
    description: 'Sent at once, paused or not; it neither retries nor pauses the channel. The outcome also appears in the delivery log.',
    tag: TAG,
    auth,
    responses: { 200: { description: 'The outcome', schema: testResultSchema }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      ctx.body = await sendTest(deps, params.id as string);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/notifications/channels/:id/deliveries',
    summary: 'Delivery log of a notification channel',
    description: 'The last 100 messages of the channel, newest first: how many events each groups, its state, attempts and what the service last answered.',
    tag: TAG,
    auth,
    responses: { 200: { description: 'The messages, newest first', schema: deliveryLogSchema }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      ctx.body = await deliveryLog(deps.db, params.id as string);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/notifications/settings',
    summary: 'Notification settings',
    description: 'The dashboard address messages link to (null: messages carry no links).',
    tag: TAG,
    auth,
    responses: { 200: { description: 'The settings', schema: settingsSchema }, ...errorDocs(403) },
    async handle(ctx, _input, deps) {
      ctx.body = await getSettings(deps.db);
    },
  }),
  defineRoute<NotificationSettingsUpdate>({
    method: 'PUT',
    path: '/v1/notifications/settings',
    summary: 'Set the notification settings',
    description: 'Sets the dashboard address as people reach it (https://farm.example.com); messages link to its pages.',
    tag: TAG,
    auth,
    body: SettingsBody,
    responses: { 200: { description: 'The settings', schema: settingsSchema }, ...errorDocs(400, 403) },
    async handle(ctx, { body }, deps) {
      ctx.body = await putSettings(deps, body.dashboard_url);
    },
  }),
];
