// Builds the event machinery once per server (outbox, commit feed, live stream, telemetry, pruning) for deps.events.
// How feature code publishes events (record inside the caller's transaction, recordNow, telemetry): docs/events-integration.md.
import type { ClusterBus } from '../cluster/cluster-bus.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Db } from '../storage/db.js';
import type { EngineSql } from '../storage/engines/engine-sql.js';
import { relayEventsBetweenNodes, relayLiveBetweenNodes } from './cluster-relay.js';
import { CommittedFeed } from './committed-feed.js';
import { pruneEvents } from './event-log.repository.js';
import { TELEMETRY_EVENT_TYPE, type LiveType, type RecordableType } from './event-names.js';
import { EventOutbox, type Executor, type RecordSubscriber } from './event-outbox.js';
import { LiveStreamHub } from './live-stream.js';
import { makeEvent, type PublicEvent } from './public-event.js';
import type { SseOptions } from './sse-connection.js';
import { TelemetryThrottle } from './telemetry-throttle.js';

export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

export interface EventsOptions {
  /** How long the log keeps events for Last-Event-ID (deliveries still pending keep theirs longer). */
  retentionMs?: number;
  pruneEveryMs?: number;
  /** Safety poll of the commit feed, for events written outside record() (e.g. another process). */
  feedPollMs?: number;
  sse?: Partial<SseOptions>;
}

/** What a printer session knows at a moment: streamed live as printer.telemetry, never stored. */
export interface TelemetrySample {
  temperatures?: { hotend?: number | null; hotend_target?: number | null; bed?: number | null; bed_target?: number | null };
  progress?: number | null;
  job_id?: string | null;
  [extra: string]: unknown;
}

export interface EventsRuntime {
  /** Call INSIDE the caller's kysely transaction: writes the event (and the subscribers' rows) there; announced after commit. */
  record<T>(trx: Executor, type: RecordableType, object: T): Promise<PublicEvent<T>>;
  /** Same, in a transaction of its own, for events without a state change (printer.online from a session). */
  recordNow<T>(type: RecordableType, object: T): Promise<PublicEvent<T>>;
  /** Adds a subscriber that writes its own rows for every recorded event, in the recording transaction. */
  onRecord(subscriber: RecordSubscriber): void;
  /** Live printer telemetry, at most once a second per printer; false when throttled away. Never stored nor sent to webhooks. */
  telemetry(printerId: string, sample: TelemetrySample): boolean;
  /** Any other live-only event (job.progress): to the live stream now, never stored nor sent to webhooks. */
  live<T>(type: LiveType, object: T): void;
  /** A printer removed: forget its throttle slot. */
  forgetPrinter(printerId: string): void;
  readonly stream: LiveStreamHub;
  readonly feed: CommittedFeed;
  readonly sse: SseOptions;
  /** Deletes events past retention now (also runs in the background once started). */
  prune(): Promise<number>;
  /** Reads where the event log ends, then starts the background jobs (the commit feed's safety poll, pruning). */
  start(): Promise<void>;
  /** Ends live streams and stops the background jobs. */
  stop(): Promise<void>;
}

/** `cluster`: the signals between nodes sharing the database; absent, this node's events stay on this node's stream. */
export function createEventsRuntime(base: { db: Db; sql: EngineSql; clock: Clock; logger: Logger; cluster?: ClusterBus }, options: EventsOptions = {}): EventsRuntime {
  const { db, clock, logger } = base;
  const feed = new CommittedFeed(db, logger);
  const outbox = new EventOutbox(db, base.sql, clock, feed);
  const stream = new LiveStreamHub();
  const throttle = new TelemetryThrottle();
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  const sse: SseOptions = { heartbeatMs: options.sse?.heartbeatMs ?? 15_000, maxBufferedBytes: options.sse?.maxBufferedBytes ?? 1024 * 1024 };
  feed.subscribe((rows) => stream.publishRows(rows));
  const relay = base.cluster ? relayEventsBetweenNodes(feed, base.cluster, logger) : null;
  if (relay) outbox.subscribe(relay.noteRecorded);
  const liveRelay = base.cluster ? relayLiveBetweenNodes(base.cluster, logger, (event) => stream.publishLive(event)) : null;
  const publishLive = (event: PublicEvent): void => {
    stream.publishLive(event);
    liveRelay?.send(event);
  };
  const timers: NodeJS.Timeout[] = [];
  let stopped: Promise<void> | undefined;

  const prune = async (): Promise<number> => pruneEvents(db, clock.now() - retentionMs);

  return {
    record: (trx, type, object) => outbox.record(trx, type, object),
    recordNow: (type, object) => outbox.recordNow(type, object),
    onRecord: (subscriber) => outbox.subscribe(subscriber),
    telemetry(printerId, sample) {
      const now = clock.now();
      if (!throttle.admit(printerId, now)) return false;
      publishLive(makeEvent(TELEMETRY_EVENT_TYPE, { printer_id: printerId, ...sample }, now));
      return true;
    },
    live(type, object) {
      publishLive(makeEvent(type, object, clock.now()));
    },
    forgetPrinter: (printerId) => throttle.forget(printerId),
    stream,
    feed,
    sse,
    prune,
    async start() {
      await feed.prime();
      timers.push(setInterval(() => feed.poke(), options.feedPollMs ?? 1000).unref());
      const pruneEvery = options.pruneEveryMs ?? 60 * 60 * 1000;
      timers.push(
        setInterval(() => {
          prune().catch((err: unknown) => logger.error('events: pruning the log failed', { error: err as Error }));
        }, pruneEvery).unref(),
      );
    },
    stop() {
      stopped ??= (async () => {
        for (const t of timers) clearInterval(t);
        relay?.stop();
        liveRelay?.stop();
        stream.closeAll('shutting_down');
        feed.stop();
      })();
      return stopped;
    },
  };
}
