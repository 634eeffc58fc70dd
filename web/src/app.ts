// The dashboard's root: finds the session, shows sign-in (or invitation acceptance) without one, else the page of the hash route.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { html } from './lib/html.js';
import { api, ApiError, setUnauthorizedHandler } from './lib/api.js';
import { setStreamLostHandler, startLive, stopLive } from './lib/live.js';
import { useRoute } from './lib/router.js';
import { covers, SessionContext, type Session, type SessionApi } from './lib/session.js';
import { PAGES } from './pages/index.js';
import { SignInPage } from './pages/sign-in.js';
import { AcceptInvitePage } from './pages/accept-invite.js';
import { Layout } from './components/layout.js';
import { ErrorNote } from './components/ui.js';
import { errorWords } from './lib/error-words.js';

type SessionState = { kind: 'loading' } | { kind: 'signed-out'; reason: string | null } | { kind: 'signed-in'; session: Session } | { kind: 'failed'; error: string };

export function App() {
  const route = useRoute();
  const [state, setState] = useState<SessionState>({ kind: 'loading' });
  const [currency, setCurrency] = useState('EUR');

  const check = async () => {
    try {
      const { session } = await api.get<{ session: Session }>('/v1/sessions/current');
      setState({ kind: 'signed-in', session });
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 404)) setState({ kind: 'signed-out', reason: null });
      else setState({ kind: 'failed', error: errorWords(err) });
    }
  };

  useEffect(() => {
    setUnauthorizedHandler((err) => setState({ kind: 'signed-out', reason: err.message }));
    // A stream the server ended or refused: if the session ended, the check's 401 shows the sign-in page.
    setStreamLostHandler(() =>
      void api.get('/v1/sessions/current').catch((err) => {
        if (err instanceof ApiError && err.status === 401) setState({ kind: 'signed-out', reason: err.message });
      }),
    );
    void check();
  }, []);

  useEffect(() => {
    if (state.kind !== 'signed-in') {
      stopLive();
      return;
    }
    startLive();
    api.get<{ currency?: string }>('/v1/organization').then((o) => o.currency && setCurrency(o.currency), () => {});
  }, [state.kind]);

  const sessionApi = useMemo<SessionApi | null>(() => {
    if (state.kind !== 'signed-in') return null;
    const scopes = state.session.scopes;
    return {
      session: state.session,
      can: (scope) => covers(scopes, scope),
      currency,
      // Signed out only when the server says so (or the session is already gone); any other failure is thrown to the
      // button, which says it in words, so nobody leaves a shared PC believing they signed out.
      signOut: async () => {
        try {
          await api.del('/v1/sessions/current');
        } catch (err) {
          if (!(err instanceof ApiError && (err.status === 401 || err.status === 404))) throw err;
        }
        setState({ kind: 'signed-out', reason: null });
      },
    };
  }, [state, currency]);

  const signedIn = (session: Session) => setState({ kind: 'signed-in', session });
  if (route.parts[0] === 'accept-invite') return html`<${AcceptInvitePage} route=${route} onSignedIn=${signedIn} />`;
  if (state.kind === 'loading') return html`<main class="center" aria-busy="true"><p>Loading…</p></main>`;
  if (state.kind === 'failed') {
    return html`<main class="center"><${ErrorNote} error=${state.error} /><button class="btn primary" onClick=${check}>Try again</button></main>`;
  }
  if (state.kind === 'signed-out' || !sessionApi) {
    return html`<${SignInPage} reason=${state.kind === 'signed-out' ? state.reason : null} onSignedIn=${signedIn} />`;
  }
  const page = PAGES.find((p) => p.path === (route.parts[0] ?? '')) ?? null;
  return html`<${SessionContext.Provider} value=${sessionApi}>
    <${Layout} page=${page} route=${route} />
  <//>`;
}
