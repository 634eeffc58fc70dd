// GET /v1/homeassistant: the MQTT connection to Home Assistant's broker as it stands (docs/home-assistant.md).
import { errorDocs } from '../http/route-docs.js';
import type { HttpDeps } from '../http/http-deps.js';
import { routeDefiner } from '../http/route.js';
import type { JsonSchema } from '../http/validation.js';
import type { HomeAssistantRuntime } from './homeassistant-runtime.js';
import { HomeAssistantStatusSchema, type HomeAssistantStatusRecord } from './homeassistant.schemas.js';

export type HomeAssistantRouteDeps = HttpDeps & { homeassistant: HomeAssistantRuntime | null };
const defineRoute = routeDefiner<HomeAssistantRouteDeps>();

const DISABLED: HomeAssistantStatusRecord = { enabled: false, broker: null, connected: false, since: null, last_error: null, failed_attempts: 0, published: 0, commands_refused: 0 };

export const homeAssistantRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/homeassistant',
    summary: 'The MQTT connection that shows the farm in Home Assistant',
    description:
      'Whether this node publishes to a broker (--mqtt), whether it is connected now, and the last error. A broker that is down is retried with back-off (1 s doubling to 30 s) and slows nothing else; the state is sent again once it is back.',
    tag: 'Home Assistant',
    auth: { scope: 'printers:read' },
    responses: { 200: { description: 'The connection as it stands', schema: HomeAssistantStatusSchema as unknown as JsonSchema }, ...errorDocs(403) },
    handle(ctx, _input, deps) {
      const ha = deps.homeassistant;
      if (!ha) {
        ctx.body = DISABLED;
        return;
      }
      const s = ha.status();
      ctx.body = { enabled: true, broker: s.broker, connected: s.connected, since: s.since, last_error: s.last_error, failed_attempts: s.failed_attempts, published: s.published, commands_refused: s.commands_refused };
    },
  }),
];
