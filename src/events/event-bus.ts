// The typed event bus: printer sessions, services and the job runner publish; webhooks, the live stream and analytics subscribe.
import type { DomainEvents } from './event-types.js';

export type EventName = keyof DomainEvents;
export type Listener<K extends EventName> = (payload: DomainEvents[K], name: K) => void;
type AnyListener = (payload: DomainEvents[EventName], name: EventName) => void;

export class EventBus {
  private readonly listeners = new Map<EventName, Set<AnyListener>>();
  private readonly wildcard = new Set<AnyListener>();

  on<K extends EventName>(name: K, listener: Listener<K>): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(listener as AnyListener);
    return () => set.delete(listener as AnyListener);
  }

  /** Every event, for consumers that filter by pattern themselves (webhook dispatcher, live stream). */
  onAny(listener: AnyListener): () => void {
    this.wildcard.add(listener);
    return () => this.wildcard.delete(listener);
  }

  /** A throwing subscriber must not stop the publisher (a printer session) nor the other subscribers. */
  emit<K extends EventName>(name: K, payload: DomainEvents[K]): void {
    for (const l of [...(this.listeners.get(name) ?? []), ...this.wildcard]) {
      try {
        l(payload, name);
      } catch (err) {
        process.emitWarning(`event listener for ${name} threw: ${(err as Error).message}`);
      }
    }
  }
}
