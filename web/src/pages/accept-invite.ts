// #/accept-invite?token=inv_…: the invited person chooses a password (POST /v1/users/accept-invite), is signed in with it, lands on #/.
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { useAction } from '../lib/hooks.js';
import { navigate, type Route } from '../lib/router.js';
import type { Session } from '../lib/session.js';
import { Button, ErrorNote, Field, Notice } from '../components/ui.js';
import { createSession, SignInHead } from './sign-in.js';

interface AcceptedUser {
  id: string;
  email: string;
  name: string;
  role: string;
}

export function AcceptInvitePage({ route, onSignedIn }: { route: Route; onSignedIn: (session: Session) => void }) {
  const token = route.query.get('token')?.trim() ?? '';
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  // Once the invitation is used it cannot be used again: a retry after a failed sign-in only signs in.
  const [accepted, setAccepted] = useState<AcceptedUser | null>(null);
  const [mismatch, setMismatch] = useState(false);

  const action = useAction(async () => {
    let user = accepted;
    if (!user) {
      user = await api.post<AcceptedUser>('/v1/users/accept-invite', { token, password });
      setAccepted(user);
    }
    const session = await createSession({ email: user.email, password });
    navigate('#/');
    onSignedIn(session);
  });

  const submit = (e: Event) => {
    e.preventDefault();
    if (password !== repeat) {
      setMismatch(true);
      return;
    }
    setMismatch(false);
    void action.run();
  };

  if (!token) {
    return html`<main id="main" class="signin" tabindex="-1">
      <${SignInHead} subtitle="Accept your invitation" />
      <div class="signin-forms single">
        <${ErrorNote} error="This link has no invitation token. Open the link from your invitation again (all of it), or ask an admin to invite you again." />
        <p><a href="#/">Go to sign-in</a></p>
      </div>
    </main>`;
  }

  return html`<main id="main" class="signin" tabindex="-1">
    <${SignInHead} subtitle="Accept your invitation: choose a password" />
    <div class="signin-forms single">
      <section class="card" aria-labelledby="invite-title">
        <h2 id="invite-title">Choose your password</h2>
        ${accepted
          ? html`<${Notice} kind="success">Your password is set for ${accepted.email}. Signing you in…<//>`
          : html`<p class="hint">You will sign in with the email address the invitation was sent to and this password.</p>`}
        <form id="accept-invite" onSubmit=${submit}>
          <${Field} id="invite-password" label="New password" hint="At least 12 characters, with at least 4 different ones.">
            <input id="invite-password" name="password" type="password" autocomplete="new-password" required value=${password}
              aria-describedby="invite-password-hint" readOnly=${accepted !== null}
              onInput=${(e: Event) => setPassword((e.target as HTMLInputElement).value)} />
          <//>
          <${Field} id="invite-repeat" label="Repeat the password">
            <input id="invite-repeat" name="repeat" type="password" autocomplete="new-password" required value=${repeat}
              aria-invalid=${mismatch ? 'true' : undefined} readOnly=${accepted !== null}
              onInput=${(e: Event) => setRepeat((e.target as HTMLInputElement).value)} />
          <//>
          <${ErrorNote} error=${mismatch ? 'The two passwords differ. Type the same password in both fields.' : null} />
          <${ErrorNote} error=${action.error} />
          <${Button} type="submit" kind="primary" busy=${action.busy}>${accepted ? 'Sign in' : 'Set password and sign in'}<//>
        </form>
      </section>
      <p class="hint">Already set a password? <a href="#/">Sign in</a>.</p>
    </div>
  </main>`;
}
