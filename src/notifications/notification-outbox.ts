// The notification side of the transactional outbox: for each recorded event, the channels whose rule matches get it,
// in the event's own transaction: joined to their open message (flood grouping, quiet-hours digest) or a new one.
import { findOrganization } from '../auth/organization.repository.js';
import { isoTime } from '../clock.js';
import { anyPatternMatches, TEST_EVENT_TYPE } from '../events/event-names.js';
import type { Executor, RecordedEvent } from '../events/event-outbox.js';
import { randomBase62 } from '../ids.js';
import { enabledChannels } from './channels.repository.js';
import { insertNotificationDelivery, openMessageOf, updateNotificationDelivery } from './notification-deliveries.repository.js';
import { isUrgent } from './person-message.js';
import { quietUntil } from './quiet-hours.js';

export const newNotificationId = (): string => `ntf_${randomBase62(20)}`;

/**
 * `groupMs`: how long a message waits for more events before it goes (a power cut takes 50 printers offline within
 * seconds: one message, not 50). It is the only delay an urgent event sees.
 */
export function notificationFanOut(groupMs: number) {
  return async function fanOutToChannels(trx: Executor, event: RecordedEvent): Promise<void> {
    if (event.type === TEST_EVENT_TYPE) return;
    const channels = (await enabledChannels(trx)).filter((c) => anyPatternMatches(JSON.parse(c.events) as string[], event.type));
    if (channels.length === 0) return;
    const timeZone = (await findOrganization(trx))?.timezone ?? 'UTC';
    for (const ch of channels) {
      const quietEnd = isUrgent(event.type) ? null : quietUntil(event.createdMs, timeZone, ch.quiet_start_min, ch.quiet_end_min);
      const mode = quietEnd === null ? 'now' : 'digest';
      const open = await openMessageOf(trx, ch.id, mode, event.createdMs);
      if (open) {
        const seqs = [...(JSON.parse(open.event_seqs) as number[]), event.seq];
        await updateNotificationDelivery(trx, open.id, { event_seqs: JSON.stringify(seqs), updated_at: event.createdAt });
        continue;
      }
      await insertNotificationDelivery(trx, {
        id: newNotificationId(),
        channel_id: ch.id,
        event_seqs: JSON.stringify([event.seq]),
        mode,
        status: 'pending',
        attempts: 0,
        next_attempt_ms: quietEnd ?? event.createdMs + groupMs,
        leased_by: null,
        title: null,
        last_status: null,
        last_error: null,
        created_at: event.createdAt,
        updated_at: isoTime(event.createdMs),
        delivered_at: null,
      });
    }
  };
}
