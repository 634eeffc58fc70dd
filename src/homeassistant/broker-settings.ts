// The broker set on the settings page: checked, its password sealed at rest (never returned), turned into what the
// MQTT link needs. A --mqtt flag wins over it (homeassistant-control.ts).
import { X509Certificate } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { badRequest, notFound } from '../errors.js';
import type { Db } from '../storage/db.js';
import type { SecretSealer } from '../auth/api-key-digest.js';
import { readBroker, writeBroker } from './broker-settings.repository.js';
import { describeTarget, MqttUrlError, parseMqttUrl, type MqttTarget } from './mqtt-target.js';

export const BrokerSettingsBody = Type.Object(
  {
    url: Type.Union([Type.String({ maxLength: 500 }), Type.Null()], {
      description: 'mqtt://user@host[:port] or mqtts://… (TLS); a password in it is moved to `password`. null turns publishing off.',
    }),
    password: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()], { description: 'The broker password; left out: the stored one is kept; null: none.' })),
    ca_pem: Type.Optional(Type.Union([Type.String({ maxLength: 20_000 }), Type.Null()], { description: 'PEM of the CA that signed an mqtts broker\'s certificate; left out: kept; null: the system\'s CAs.' })),
  },
  { additionalProperties: false, examples: [{ url: 'mqtts://farm@192.168.1.5:8883', password: 'broker password', ca_pem: null }] },
);
export type BrokerSettingsInput = Static<typeof BrokerSettingsBody>;

/** What GET shows of the stored broker: never the password. */
export interface BrokerSettingsView {
  url: string | null;
  has_password: boolean;
  has_ca: boolean;
}

/** The password's seal is bound to the organization, so it cannot be copied onto another row. */
const sealContext = (organizationId: string): string => `mqtt:${organizationId}`;

export async function brokerSettingsView(db: Db): Promise<BrokerSettingsView> {
  const b = await readBroker(db);
  return { url: b?.url ?? null, has_password: !!b?.password, has_ca: !!b?.ca };
}

export async function saveBrokerSettings(db: Db, secrets: SecretSealer, input: BrokerSettingsInput, nowIso: string): Promise<BrokerSettingsView> {
  const stored = await readBroker(db);
  if (!stored) throw notFound('organization');
  if (input.url === null) {
    await writeBroker(db, { organizationId: stored.organizationId, url: null, password: null, ca: null }, nowIso);
    return { url: null, has_password: false, has_ca: false };
  }
  let target: MqttTarget;
  try {
    target = parseMqttUrl(input.url.trim());
  } catch (err) {
    if (err instanceof MqttUrlError) throw badRequest(`url: ${err.message}`);
    throw err;
  }
  const plain = target.password ?? (input.password === undefined ? undefined : input.password === '' ? null : input.password);
  const password = plain === undefined ? stored.password : plain === null ? null : secrets.seal(plain, sealContext(stored.organizationId));
  const ca = input.ca_pem === undefined ? stored.ca : input.ca_pem === null || input.ca_pem.trim() === '' ? null : checkedPem(input.ca_pem);
  const url = describeTarget({ ...target, password: null });
  await writeBroker(db, { organizationId: stored.organizationId, url, password, ca }, nowIso);
  return { url, has_password: password !== null, has_ca: ca !== null };
}

function checkedPem(pem: string): string {
  try {
    new X509Certificate(pem);
  } catch {
    throw badRequest('ca_pem: not a PEM certificate (-----BEGIN CERTIFICATE----- …)');
  }
  return pem.trim() + '\n';
}

/** The stored broker as the link needs it (the password opened), or null when none is set. */
export async function storedBrokerTarget(db: Db, secrets: SecretSealer): Promise<{ target: MqttTarget; ca?: Buffer } | null> {
  const b = await readBroker(db);
  if (!b?.url) return null;
  const target = { ...parseMqttUrl(b.url), password: b.password ? secrets.open(b.password, sealContext(b.organizationId)) : null };
  return { target, ...(b.ca ? { ca: Buffer.from(b.ca) } : {}) };
}
