// The sign-in page: an invited user's email and password, or an API key; both POST /v1/sessions and keep their input on failure.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction } from '../lib/hooks.js';
import type { Session } from '../lib/session.js';
import { Button, ErrorNote, Field, Notice } from '../components/ui.js';

/** POST /v1/sessions with either credential; the server sets the session cookie, the page gets the session object. */
export async function createSession(body: { email: string; password: string } | { api_key: string }): Promise<Session> {
  const { session } = await api.post<{ session: Session }>('/v1/sessions', body);
  return session;
}

export function SignInHead({ subtitle }: { subtitle: string }) {
  return html`<div class="signin-head">
    <h1 class="brand"><span class="brand-mark" aria-hidden="true">▦</span>printfarm</h1>
    <p>${subtitle}</p>
  </div>`;
}

function PasswordForm({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction(async () => onSignedIn(await createSession({ email: email.trim(), password })));
  return html`<section class="card" aria-labelledby="signin-password-title">
    <h2 id="signin-password-title">Email and password</h2>
    <p class="hint">For people invited to this farm. The invitation link sets your password.</p>
    <form id="signin-password" onSubmit=${(e: Event) => { e.preventDefault(); void action.run(); }}>
      <${Field} id="signin-email" label="Email">
        <input id="signin-email" name="email" type="email" autocomplete="username" required value=${email}
          onInput=${(e: Event) => setEmail((e.target as HTMLInputElement).value)} />
      <//>
      <${Field} id="signin-pass" label="Password">
        <input id="signin-pass" name="password" type="password" autocomplete="current-password" required value=${password}
          onInput=${(e: Event) => setPassword((e.target as HTMLInputElement).value)} />
      <//>
      <${ErrorNote} error=${action.error} />
      <${Button} type="submit" kind="primary" busy=${action.busy}>Sign in<//>
    </form>
  </section>`;
}

function KeyForm({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [key, setKey] = useState('');
  const action = useAction(async () => onSignedIn(await createSession({ api_key: key.trim() })));
  return html`<section class="card" aria-labelledby="signin-key-title">
    <h2 id="signin-key-title">API key</h2>
    <p class="hint">For admins and wall screens. The first start of the server wrote one to <code>data/initial-admin-key.txt</code>.</p>
    <form id="signin-key" onSubmit=${(e: Event) => { e.preventDefault(); void action.run(); }}>
      <${Field} id="signin-api-key" label="API key" hint="Starts with svc_live_ or svc_test_. The browser keeps only a session, never the key.">
        <input id="signin-api-key" name="api_key" type="password" autocomplete="off" spellcheck=${false} required value=${key}
          aria-describedby="signin-api-key-hint" onInput=${(e: Event) => setKey((e.target as HTMLInputElement).value)} />
      <//>
      <${ErrorNote} error=${action.error} />
      <${Button} type="submit" kind="primary" busy=${action.busy}>Sign in with key<//>
    </form>
  </section>`;
}

export function SignInPage({ reason, onSignedIn }: { reason: string | null; onSignedIn: (session: Session) => void }) {
  return html`<main id="main" class="signin" tabindex="-1">
    <${SignInHead} subtitle="Sign in to the print farm dashboard" />
    ${reason ? html`<${Notice} kind="warning">You were signed out: ${reason.replace(/\.?$/, '.')} Sign in again to continue.<//>` : null}
    <div class="signin-forms">
      <${PasswordForm} onSignedIn=${onSignedIn} />
      <${KeyForm} onSignedIn=${onSignedIn} />
    </div>
  </main>`;
}
