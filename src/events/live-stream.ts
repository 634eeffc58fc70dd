// Fans events out to live-stream subscribers: committed log rows (with their seq) and live-only telemetry.
import type { EventRow } from './event-log.repository.js';
import type { PublicEvent } from './public-event.js';

/** One event as a subscriber gets it: `seq` is null for live-only events (telemetry), which carry no SSE id. */
export interface StreamItem {
  seq: number | null;
  event: PublicEvent;
  /** The event serialized once for every subscriber. */
  json: string;
}

export type StreamSubscriber = (item: StreamItem) => void;

export class LiveStreamHub {
  private readonly subscribers = new Set<StreamSubscriber>();
  private readonly closers = new Set<(reason: string) => void>();

  subscribe(subscriber: StreamSubscriber, close: (reason: string) => void): () => void {
    this.subscribers.add(subscriber);
    this.closers.add(close);
    return () => {
      this.subscribers.delete(subscriber);
      this.closers.delete(close);
    };
  }

  get size(): number {
    return this.subscribers.size;
  }

  publishRows(rows: readonly EventRow[]): void {
    if (this.subscribers.size === 0) return;
    for (const row of rows) this.publish({ seq: row.seq, event: JSON.parse(row.body) as PublicEvent, json: row.body });
  }

  publishLive(event: PublicEvent): void {
    if (this.subscribers.size === 0) return;
    this.publish({ seq: null, event, json: JSON.stringify(event) });
  }

  /** Ends every stream with a final message (server shutdown), so the server can close without waiting on them. */
  closeAll(reason: string): void {
    for (const close of [...this.closers]) close(reason);
  }

  private publish(item: StreamItem): void {
    for (const s of [...this.subscribers]) s(item);
  }
}
