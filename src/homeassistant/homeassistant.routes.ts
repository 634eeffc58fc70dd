// GET /v1/homeassistant: the MQTT connection to Home Assistant's broker as it stands; PUT /v1/homeassistant/settings:
// the broker set on the settings page (docs/home-assistant.md). The broker password is never returned.
import { errorDocs } from '../http/route-docs.js';
import type { HttpDeps } from '../http/http-deps.js';
import { routeDefiner } from '../http/route.js';
import type { JsonSchema } from '../http/validation.js';
import { ADMIN_SCOPE } from '../auth/scopes.js';
import type { SecretSealer } from '../auth/api-key-digest.js';
import type { Clock } from '../clock.js';
import type { Db } from '../storage/db.js';
import type { HomeAssistantControl } from './homeassistant-control.js';
import { HomeAssistantStatusSchema, type HomeAssistantStatusRecord } from './homeassistant.schemas.js';
import { BrokerSettingsBody, brokerSettingsView, saveBrokerSettings, type BrokerSettingsInput } from './broker-settings.js';

export type HomeAssistantRouteDeps = HttpDeps & { homeassistant: HomeAssistantControl; db: Db; secrets: SecretSealer; clock: Clock };
const defineRoute = routeDefiner<HomeAssistantRouteDeps>();
const TAG = 'Home Assistant';

async function statusRecord(deps: HomeAssistantRouteDeps): Promise<HomeAssistantStatusRecord> {
  const s = deps.homeassistant.status();
  const settings = await brokerSettingsView(deps.db);
  const connection = s
    ? { enabled: true, broker: s.broker, connected: s.connected, since: s.since, last_error: s.last_error, failed_attempts: s.failed_attempts, published: s.published, commands_refused: s.commands_refused }
    : { enabled: false, broker: null, connected: false, since: null, last_error: null, failed_attempts: 0, published: 0, commands_refused: 0 };
  return { ...connection, source: deps.homeassistant.source, settings };
}

export const homeAssistantRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/homeassistant',
    summary: 'The MQTT connection that shows the farm in Home Assistant',
    description:
      'Whether this node publishes to a broker, which one (`source`: the --mqtt flag, which wins, or the settings), whether it is connected now, and the last error. A broker that is down is retried with back-off (1 s doubling to 30 s) and slows nothing else; the state is sent again once it is back. `settings` is the broker stored on the settings page, without its password.',
    tag: TAG,
    auth: { scope: 'printers:read' },
    responses: { 200: { description: 'The connection as it stands', schema: HomeAssistantStatusSchema as unknown as JsonSchema }, ...errorDocs(403) },
    async handle(ctx, _input, deps) {
      ctx.body = await statusRecord(deps);
    },
  }),

  defineRoute<BrokerSettingsInput>({
    method: 'PUT',
    path: '/v1/homeassistant/settings',
    summary: 'Set the MQTT broker the farm publishes to for Home Assistant',
    description:
      'Stores the broker (`url` null turns publishing off) with its password sealed at rest, and starts publishing to it at once. While the server runs with --mqtt the flag wins: the settings are stored for later and `source` stays `flag`. A `password` left out keeps the stored one.',
    tag: TAG,
    auth: { scope: ADMIN_SCOPE },
    body: BrokerSettingsBody as unknown as JsonSchema,
    responses: { 200: { description: 'The connection after the change', schema: HomeAssistantStatusSchema as unknown as JsonSchema }, ...errorDocs(400, 403) },
    async handle(ctx, { body }, deps) {
      await saveBrokerSettings(deps.db, deps.secrets, body, new Date(deps.clock.now()).toISOString());
      await deps.homeassistant.reload();
      ctx.body = await statusRecord(deps);
    },
  }),
];
