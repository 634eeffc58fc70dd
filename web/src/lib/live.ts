// The tab's one live connection: a single EventSource on /v1/events (cookie auth) fanned out to the page's subscribers.

export interface LiveEvent<T = any> {
  id?: string;
  type: string;
  created_at: string;
  data: { object: T };
}

export type LiveListener = (event: LiveEvent) => void;
export type LiveState = 'connecting' | 'open' | 'closed';

/** Every type the dashboard shows; the server drops those the signed-in user may not read. */
const TYPES = ['job.*', 'printer.*', 'material.*', 'printer.telemetry', 'printer.updated', 'material.updated', 'job.progress', 'webhook.test'];

const listeners = new Set<LiveListener>();
const stateListeners = new Set<(s: LiveState) => void>();
let source: EventSource | null = null;
let state: LiveState = 'closed';

function setState(s: LiveState): void {
  state = s;
  for (const l of stateListeners) l(s);
}

function dispatch(type: string, raw: MessageEvent): void {
  let event: LiveEvent;
  try {
    event = JSON.parse(raw.data) as LiveEvent;
  } catch {
    return;
  }
  event.type ??= type;
  for (const l of [...listeners]) l(event);
}

let retryTimer: ReturnType<typeof setTimeout> | null = null;
let retries = 0;
/** Asked when the server ended or refused the stream: the app checks whether the session still stands (set by app.ts). */
let onStreamLost: () => void = () => {};
export function setStreamLostHandler(handler: () => void): void {
  onStreamLost = handler;
}

/** A fresh stream after `ms`, unless stopped meanwhile (sign-out). */
function reopenLater(ms: number): void {
  if (retryTimer) clearTimeout(retryTimer);
  retryTimer = setTimeout(() => {
    retryTimer = null;
    startLive();
  }, ms);
}

/**
 * Opens the stream (after sign-in). EventSource reconnects by itself after a network error and resends
 * Last-Event-ID, so nothing is missed; when it gives up (the server answered an error, e.g. 401 or a proxy's 502) or
 * the server ends the stream, a fresh one is opened with back-off, and the app re-checks the session.
 */
export function startLive(): void {
  if (source) return;
  const url = `/v1/events?types=${encodeURIComponent(TYPES.join(','))}`;
  const es = new EventSource(url, { withCredentials: true });
  source = es;
  setState('connecting');
  es.onopen = () => {
    retries = 0;
    setState('open');
  };
  es.onerror = () => {
    if (es.readyState !== EventSource.CLOSED) {
      setState('connecting');
      return;
    }
    source = null;
    setState('closed');
    onStreamLost();
    reopenLater(Math.min(30_000, 1000 * 2 ** retries++));
  };
  const names = [
    'job.created', 'job.started', 'job.paused', 'job.resumed', 'job.completed', 'job.failed', 'job.cancelled', 'job.progress',
    'printer.online', 'printer.offline', 'printer.error', 'printer.telemetry', 'printer.updated', 'material.low', 'material.empty', 'material.updated', 'webhook.test',
  ];
  for (const name of names) es.addEventListener(name, (e) => dispatch(name, e as MessageEvent));
  // The server ends a stream with `event: end`: too slow a reader, shutting down, or the session ended (unauthorized).
  es.addEventListener('end', (e) => {
    let reason = '';
    try {
      reason = String(JSON.parse((e as MessageEvent).data).reason ?? '');
    } catch {
      // no reason given: treat as a plain end
    }
    es.close();
    source = null;
    setState('closed');
    if (reason === 'unauthorized') onStreamLost();
    reopenLater(1000);
  });
}

/** Closes the stream and cancels any pending reopen (sign-out). */
export function stopLive(): void {
  if (retryTimer) clearTimeout(retryTimer);
  retryTimer = null;
  retries = 0;
  source?.close();
  source = null;
  setState('closed');
}

/** Calls `listener` for every live event until the returned function is called. */
export function subscribe(listener: LiveListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function liveState(): LiveState {
  return state;
}

export function onLiveState(listener: (s: LiveState) => void): () => void {
  stateListeners.add(listener);
  return () => stateListeners.delete(listener);
}
