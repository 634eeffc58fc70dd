// The live-connection indicator (dot + word) of the top bar and the wall: is the page following GET /v1/events right now?
import { useEffect, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { liveState, onLiveState, type LiveState } from '../lib/live.js';

const LIVE_WORDS: Record<LiveState, { word: string; title: string }> = {
  open: { word: 'Live', title: 'Live updates are on' },
  connecting: { word: 'Connecting…', title: 'Connecting to live updates; the page may lag behind' },
  closed: { word: 'Not live', title: 'Live updates are off; reload the page to reconnect' },
};

/** The tab's live-connection state, re-rendered on every change. */
export function useLiveState(): LiveState {
  const [state, setState] = useState<LiveState>(liveState());
  useEffect(() => {
    const off = onLiveState(setState);
    // The state may have changed between the first render and this subscription.
    setState(liveState());
    return off;
  }, []);
  return state;
}

/** Dot + word, so the state is never told by colour alone. */
export function LiveIndicator() {
  const state = useLiveState();
  const { word, title } = LIVE_WORDS[state];
  return html`<span class=${`live ${state}`} role="status" title=${title} aria-label=${title}>
    <span class="live-dot" aria-hidden="true"></span><span class="live-word" aria-hidden="true">${word}</span>
  </span>`;
}
