// A channel's secrets sealed with the node's key (bound to the channel id), with only their names readable beside them.
import type { SecretSealer } from '../auth/api-key-digest.js';
import type { ChannelRow } from './channels.repository.js';

/** The names of the stored secrets are kept in clear beside the sealed value (`names|sealed`), never their values. */
export function secretsSet(row: ChannelRow): string[] {
  if (!row.secret_sealed) return [];
  const bar = row.secret_sealed.indexOf('|');
  return bar > 0 ? row.secret_sealed.slice(0, bar).split(',') : [];
}
export const sealSecrets = (box: SecretSealer, id: string, secrets: Record<string, string>): string | null => {
  const names = Object.keys(secrets).sort();
  return names.length === 0 ? null : `${names.join(',')}|${box.seal(JSON.stringify(secrets), id)}`;
};
/** Opens a channel's secrets (the worker); {} when none. */
export function openSecrets(box: SecretSealer, row: Pick<ChannelRow, 'id' | 'secret_sealed'>): Record<string, string> {
  if (!row.secret_sealed) return {};
  const sealed = row.secret_sealed.slice(row.secret_sealed.indexOf('|') + 1);
  return JSON.parse(box.open(sealed, row.id)) as Record<string, string>;
}

