// Which secrets sign a delivery now (both during a rotation's 24 h overlap), new secrets, and the organization's allowed hosts.
import { randomBase62 } from '../ids.js';
import type { Db } from '../storage/db.js';
import type { WebhookRow } from './webhooks.repository.js';

/** How long the secret replaced by a PATCH keeps signing beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export const generateSecret = (): string => `whsec_${randomBase62(32)}`;

export function activeSecrets(webhook: Pick<WebhookRow, 'secret' | 'previous_secret' | 'previous_secret_until_ms'>, nowMs: number): string[] {
  const previousValid = webhook.previous_secret && webhook.previous_secret_until_ms !== null && nowMs < webhook.previous_secret_until_ms;
  return previousValid ? [webhook.secret, webhook.previous_secret as string] : [webhook.secret];
}

/** The organization's webhook_allowed_hosts (empty: any host). */
export async function allowedHostsOf(db: Db): Promise<string[]> {
  const row = await db.selectFrom('organization').select('webhook_allowed_hosts').orderBy('created_at').limit(1).executeTakeFirst();
  return row ? (JSON.parse(row.webhook_allowed_hosts) as string[]) : [];
}
