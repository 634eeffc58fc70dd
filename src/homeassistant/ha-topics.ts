// Pure: every MQTT topic the farm publishes to or listens on (documented in docs/home-assistant.md).

/** Home Assistant's default discovery prefix. */
export const DISCOVERY_PREFIX = 'homeassistant';
/** What Home Assistant publishes there when it (re)starts: the farm then sends its discovery messages again. */
export const HA_STATUS_TOPIC = `${DISCOVERY_PREFIX}/status`;
export const BASE = 'printfarm';

/** This node's availability: `online` while connected, `offline` on a clean stop and (as last will) when it is lost. */
export const availabilityTopic = (nodeId: string): string => `${BASE}/node/${nodeId}/availability`;
export const printerStateTopic = (printerId: string): string => `${BASE}/printer/${printerId}/state`;
export const printerCommandTopic = (printerId: string): string => `${BASE}/printer/${printerId}/command`;
export const FARM_STATE_TOPIC = `${BASE}/farm/state`;
export const FARM_COMMAND_TOPIC = `${BASE}/farm/command`;
/** Refused commands are answered here (not retained). */
export const ERROR_TOPIC = `${BASE}/error`;
/** What the farm subscribes to: every printer's command topic, and the farm's (which takes no command, so it answers why). */
export const COMMAND_SUBSCRIPTIONS = [`${BASE}/printer/+/command`, FARM_COMMAND_TOPIC];

/** The printer a command topic names, or null when the topic is not a printer's command topic. */
export function printerOfCommandTopic(topic: string): string | null {
  const m = /^printfarm\/printer\/([^/]+)\/command$/.exec(topic);
  return m ? m[1]! : null;
}

/** Discovery config topic of one entity: <prefix>/<component>/<device>/<entity>/config. */
export const discoveryTopic = (component: string, deviceId: string, entity: string): string => `${DISCOVERY_PREFIX}/${component}/${deviceId}/${entity}/config`;
