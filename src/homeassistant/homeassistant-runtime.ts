// Wires the Home Assistant bridge to one MQTT connection for the server (--mqtt): started after the farm, stopped
// before it, with a status for GET /v1/homeassistant.
import { HomeAssistantBridge, type HomeAssistantDeps } from './ha-bridge.js';
import { availabilityTopic, COMMAND_SUBSCRIPTIONS, HA_STATUS_TOPIC } from './ha-topics.js';
import { MqttLink, type Backoff, type MqttLinkStatus } from './mqtt-link.js';
import type { MqttTarget } from './mqtt-target.js';

export interface HomeAssistantSettings {
  target: MqttTarget;
  /** PEM of a private CA for mqtts (--mqtt-ca). */
  ca?: Buffer;
  backoff?: Backoff;
  tickMs?: number;
}

export interface HomeAssistantStatus extends MqttLinkStatus {
  commands_refused: number;
}

export interface HomeAssistantRuntime {
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): HomeAssistantStatus;
}

export function createHomeAssistant(deps: Omit<HomeAssistantDeps, 'tickMs'>, s: HomeAssistantSettings): HomeAssistantRuntime {
  let bridge: HomeAssistantBridge | null = null;
  const availability = availabilityTopic(deps.nodeId);
  const link = new MqttLink({
    target: s.target,
    clientId: `printfarm_${deps.nodeId}`,
    will: { topic: availability, payload: 'offline' },
    ...(s.ca ? { ca: s.ca } : {}),
    subscriptions: [...COMMAND_SUBSCRIPTIONS, HA_STATUS_TOPIC],
    onMessage: (topic, payload) => bridge?.onMessage(topic, payload),
    logger: deps.logger,
    ...(s.backoff ? { backoff: s.backoff } : {}),
    now: () => deps.clock.now(),
  });
  bridge = new HomeAssistantBridge({ ...deps, ...(s.tickMs !== undefined ? { tickMs: s.tickMs } : {}) }, link);
  return {
    async start() {
      // The connection comes up in the background: a broker that is down delays nothing here.
      link.start();
      await bridge!.start();
    },
    async stop() {
      bridge!.stop();
      await link.stop({ topic: availability, payload: 'offline' });
    },
    status: () => ({ ...link.status(), commands_refused: bridge!.refused }),
  };
}
