// The reference text and examples of the routes in sessions.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

const example1 = {
  "id": "ses_Vq3LmN8pR3tV6wY1zAb4",
  "user": {"id":"usr_DBkwdSBu5Zjwruv16ZmX","email":"ada@example.com","name":"ada","role":"operator"},
  "key": null,
  "scopes": ["printers:*","jobs:*","materials:*","analytics:read","metrics:read"],
  "created_at": "2026-01-03T09:30:00.000Z",
  "expires_at": "2026-01-10T09:30:00.000Z",
  "idle_expires_at": "2026-01-03T21:30:00.000Z",
};

const example2 = {
  "session": example1,
};

export const sessionDocs: RouteDocs = {
  'POST /v1/sessions': {
    description: [
      'No key: the credentials are in the body, in exactly one of two forms. Answers `201` with `{ "session": … }` and',
      '`Set-Cookie: printfarm_session=…; HttpOnly; SameSite=Strict; Path=/; Max-Age=<session_lifetime_hours in seconds>`',
      '(plus `Secure` when the request came over https, behind a proxy by `X-Forwarded-Proto` with `PRINTFARM_TRUST_PROXY=1`).',
      'A wrong email address or password, a user who has not accepted the invitation yet, and a missing, revoked, expired',
      'or wrong-environment key all get the same `401 invalid_credentials`, so the answer never tells which email',
      'addresses exist, and each counts as a failed authentication of the client address (see Rate limits).',
      'A sign-in from another site\'s page (its `Origin` or `Sec-Fetch-Site` says so) is `403 csrf_rejected`; clients that',
      'send neither header, like curl, may sign in. A cookie of an earlier session the browser still sends is ended. At most',
      '4 password checks run at once (each costs a scrypt hash); a sign-in past that is `429 rate_limit_exceeded` with',
      '`Retry-After: 1`.',
      '',
      '| Field | Type | Required | Rules |',
      '|---|---|---|---|',
      '| `email` | string | with `password` | an email address, at most 254 characters, case-insensitive |',
      '| `password` | string | with `email` | 1 to 256 characters: the password set with `POST /v1/users/accept-invite` |',
      '| `api_key` | string | instead of `email` and `password` | an API key of this server\'s environment, at most 200 characters; the session acts with its scopes |',
      '',
      'Neither form, half of one, or both is `400 invalid_request` saying what is missing or extra.',
      '',
      '```sh',
      'curl -i -X POST http://localhost:8080/v1/sessions -H \'Content-Type: application/json\' \\',
      '  -d \'{"email": "ada@example.com", "password": "correct horse battery"}\'',
      '```',
    ],
    body: {"email":"ada@example.com","password":"correct horse battery"},
    response: example2,
  },
  'GET /v1/sessions/current': {
    description: [
      'Session cookie only. The session of this request, as above; the dashboard asks it on load to learn whether it is',
      'signed in and as whom. Without any credentials it is `401 invalid_session` ("not signed in"), which does not count as',
      'a failed authentication; with an API key in the `Authorization` header it is `404 resource_not_found` (that request',
      'has no session). No request fields.',
      '',
      '```sh',
      'curl -b "printfarm_session=$SESSION" http://localhost:8080/v1/sessions/current',
      '```',
    ],
    response: example2,
  },
  'DELETE /v1/sessions/current': {
    description: [
      'Session cookie only. Signs out: the session is deleted, `Set-Cookie` clears the cookie (`Max-Age=0`), `204`. Like every',
      'request that uses the cookie to change something it must come from this origin (`Origin` or',
      '`Sec-Fetch-Site: same-origin`), else `403 csrf_rejected`. No request fields.',
      '',
      '```sh',
      'curl -X DELETE -b "printfarm_session=$SESSION" -H \'Origin: http://localhost:8080\' http://localhost:8080/v1/sessions/current',
      '```',
    ],
  },
};
