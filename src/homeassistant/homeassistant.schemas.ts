// The JSON of GET /v1/homeassistant: whether the farm publishes to an MQTT broker for Home Assistant, and how that goes.
import { Type, type Static } from '@sinclair/typebox';

const nullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const HomeAssistantStatusSchema = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Whether this node publishes to a broker (--mqtt).' }),
    broker: nullableString('The broker as mqtt[s]://user@host:port (never the password); null when not enabled.'),
    connected: Type.Boolean(),
    since: nullableString('When the current connection started, or when the last one was lost (ISO 8601).'),
    last_error: nullableString('Why the last connection attempt failed or the connection ended, in the client\'s words.'),
    failed_attempts: Type.Integer({ description: 'Connection attempts since the last success; retried with back-off (1 s doubling to 30 s).' }),
    published: Type.Integer({ description: 'Messages handed to the broker since start.' }),
    commands_refused: Type.Integer({ description: 'Commands refused since start (each answered on printfarm/error).' }),
    source: Type.Union([Type.Literal('flag'), Type.Literal('settings'), Type.Null()], { description: 'Where the broker in use comes from: the --mqtt flag (it wins), the settings, or none.' }),
    settings: Type.Object(
      {
        url: nullableString('The broker stored on the settings page, mqtt[s]://user@host:port.'),
        has_password: Type.Boolean({ description: 'Whether a password is stored (sealed; never returned).' }),
        has_ca: Type.Boolean({ description: 'Whether a CA certificate is stored.' }),
      },
      { description: 'The broker stored on the settings page (used when the server runs without --mqtt).' },
    ),
  },
  {
    examples: [
      {
        enabled: true,
        broker: 'mqtts://farm@192.168.1.5:8883',
        connected: true,
        since: '2026-05-01T08:00:00.000Z',
        last_error: null,
        failed_attempts: 0,
        published: 5120,
        commands_refused: 1,
        source: 'settings',
        settings: { url: 'mqtts://farm@192.168.1.5:8883', has_password: true, has_ca: false },
      },
    ],
  },
);
export type HomeAssistantStatusRecord = Static<typeof HomeAssistantStatusSchema>;
