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
const TYPES = ['job.*', 'printer.*', 'material.*', 'printer.telemetry', 'printer.updated', 'job.progress', 'webhook.test'];

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

/** Opens the stream (after sign-in). EventSource reconnects by itself and resends Last-Event-ID, so nothing is missed. */
export function startLive(): void {
  if (source) return;
  const url = `/v1/events?types=${encodeURIComponent(TYPES.join(','))}`;
  source = new EventSource(url, { withCredentials: true });
  setState('connecting');
  source.onopen = () => setState('open');
  source.onerror = () => setState(source && source.readyState === EventSource.CLOSED ? 'closed' : 'connecting');
  const names = [
    'job.created', 'job.started', 'job.paused', 'job.resumed', 'job.completed', 'job.failed', 'job.cancelled', 'job.progress',
    'printer.online', 'printer.offline', 'printer.error', 'printer.telemetry', 'printer.updated', 'material.low', 'material.empty', 'webhook.test',
  ];
  for (const name of names) source.addEventListener(name, (e) => dispatch(name, e as MessageEvent));
  // The server ends a stream it considers too slow with `event: end`; start a fresh one.
  source.addEventListener('end', () => {
    stopLive();
    setTimeout(startLive, 1000);
  });
}

/** Closes the stream (sign-out). */
export function stopLive(): void {
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
