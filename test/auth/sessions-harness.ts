// Helpers for the browser-session tests: invite and activate users, sign in, and send the cookie as a same-origin page would.
import assert from 'node:assert/strict';
import { bearer, type TestApp } from '../helpers/test-app.js';

export const PASSWORD = 'correct horse battery';

export type Obj = Record<string, any>;

/** Invites a user with a role and accepts the invitation with `password`: an active user who can sign in. */
export async function activeUser(t: TestApp, admin: string, email: string, role: string, password = PASSWORD): Promise<{ id: string }> {
  const invited = await t.request('/v1/users/invite', { method: 'POST', headers: bearer(admin, true), body: JSON.stringify({ email, role }) });
  assert.equal(invited.status, 201);
  const { id, invite_token } = (await invited.json()) as { id: string; invite_token: string };
  const accepted = await t.request('/v1/users/accept-invite', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: invite_token, password }),
  });
  assert.equal(accepted.status, 200);
  return { id };
}

/** POST /v1/sessions as a page of this server would send it (Sec-Fetch-Site: same-origin), plus any extra headers. */
export const signInRequest = (t: TestApp, body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  t.request('/v1/sessions', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'same-origin', ...headers },
    body: JSON.stringify(body),
  });

/** The `printfarm_session=<token>` pair from a response's Set-Cookie, as a browser sends it back. */
export function cookieOf(res: Response): string {
  const set = res.headers.getSetCookie().find((c) => c.startsWith('printfarm_session='));
  assert.ok(set, 'a printfarm_session cookie was set');
  return set.split(';')[0] as string;
}

/** Signs in (201 expected) and returns the cookie and the session object. */
export async function signIn(t: TestApp, body: unknown): Promise<{ cookie: string; session: Obj; res: Response }> {
  const res = await signInRequest(t, body);
  assert.equal(res.status, 201, `sign-in answered ${res.status}`);
  const { session } = (await res.json()) as { session: Obj };
  return { cookie: cookieOf(res), session, res };
}

/** Headers of a request a page of this server makes with fetch(credentials: 'same-origin'). */
export const sameOrigin = (cookie: string, json = false): Record<string, string> => ({
  Cookie: cookie,
  'Sec-Fetch-Site': 'same-origin',
  ...(json ? { 'Content-Type': 'application/json' } : {}),
});

export async function errorOf(res: Response): Promise<{ status: number; code: string; message: string; details: string }> {
  const body = (await res.json()) as { error: { code: string; message: string; details: string } };
  return { status: res.status, ...body.error };
}
