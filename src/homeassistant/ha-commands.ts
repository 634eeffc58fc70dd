// Pure: what a message on a command topic asks for, or why it is refused (the refusal is published on printfarm/error).
import { printerOfCommandTopic } from './ha-topics.js';

/** The printer actions MQTT may ask for: the buttons. The others (home, emergency stop, disconnect…) stay API-only. */
export const MQTT_ACTIONS = ['pause', 'resume', 'cancel', 'ready'] as const;
export type MqttAction = (typeof MQTT_ACTIONS)[number];

export type CommandDecision =
  | { ok: true; printerId: string; action: MqttAction }
  | { ok: false; printerId: string | null; code: 'invalid_request' | 'insufficient_permissions'; message: string };

const MAX_ECHO = 40;
const echo = (text: string): string => JSON.stringify(text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text);

export function decideCommand(topic: string, payload: string): CommandDecision {
  const printerId = printerOfCommandTopic(topic);
  if (printerId === null) return { ok: false, printerId: null, code: 'invalid_request', message: `${topic} takes no command; commands go to printfarm/printer/<printer id>/command` };
  const action = payload.trim();
  if ((MQTT_ACTIONS as readonly string[]).includes(action)) return { ok: true, printerId, action: action as MqttAction };
  // A known API action that MQTT may not run is a permission matter; anything else is a malformed command.
  const apiOnly = ['home', 'cooldown', 'emergency_stop', 'connect', 'disconnect'].includes(action);
  return {
    ok: false,
    printerId,
    code: apiOnly ? 'insufficient_permissions' : 'invalid_request',
    message: apiOnly ? `action ${action} is not allowed over MQTT (only ${MQTT_ACTIONS.join(', ')}); use the API` : `unknown command ${echo(action)}: expected one of ${MQTT_ACTIONS.join(', ')}`,
  };
}
