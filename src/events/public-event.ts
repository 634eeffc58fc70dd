// The event object every consumer sees (webhook body, live stream, log): { id, type, created_at, data: { object } }.
import { isoTime } from '../clock.js';
import { randomBase62 } from '../ids.js';

export interface PublicEvent<T = unknown> {
  id: string;
  type: string;
  created_at: string;
  data: { object: T };
}

export const newEventId = (): string => `evt_${randomBase62(20)}`;

export const makeEvent = <T>(type: string, object: T, nowMs: number): PublicEvent<T> => ({
  id: newEventId(),
  type,
  created_at: isoTime(nowMs),
  data: { object },
});
