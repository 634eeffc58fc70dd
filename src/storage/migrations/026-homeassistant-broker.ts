// Migration: the organization's MQTT broker for Home Assistant, set on the settings page (a --mqtt flag wins over it):
// its URL without the password, the password sealed with the node key, and an optional CA certificate.
import type { Migration } from './migration.js';

const columns = `
    -- mqtt[s]://user@host:port, never with a password; NULL: the farm publishes to no broker (unless --mqtt).
    ALTER TABLE organization ADD COLUMN mqtt_url TEXT;
    -- The broker password sealed by the node's secret key (as printer api_keys); NULL: none.
    ALTER TABLE organization ADD COLUMN mqtt_password TEXT;
    -- PEM of the CA that signed an mqtts broker's certificate; NULL: the system's CAs.
    ALTER TABLE organization ADD COLUMN mqtt_ca TEXT;
  `;

export const migration026HomeAssistantBroker: Migration = {
  version: 26,
  name: 'homeassistant-broker',
  sql: columns,
  pg: columns,
};
