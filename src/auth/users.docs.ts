// The reference text and examples of the routes in users.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

const example1 = {
  "id": "usr_DBkwdSBu5Zjwruv16ZmX",
  "email": "ada@example.com",
  "name": "ada",
  "role": "operator",
  "status": "invited",
  "invited_by": "usr_sUR1m80dWyHuZJ9MV98H",
  "created_at": "2026-01-01T00:00:00.000Z",
  "updated_at": "2026-01-01T00:00:00.000Z",
};

export const userDocs: RouteDocs = {
  'GET /v1/users': {
    description: [
      'Scope `admin:*`. A list (see Lists):',
      '',
      '| Parameter | Rules |',
      '|---|---|',
      '| `page`, `per_page`, `sort`, `fields` | as for every list; sortable: `created_at`, `email`, `name`, `role` |',
      '| `role` | `owner`, `admin`, `operator` or `viewer` |',
      '| `status` | `active` or `invited` |',
      '| `email` | exact email address, case-insensitive |',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" \'http://localhost:8080/v1/users?status=invited\'',
      '```',
    ],
    response: {
      "data": [
        example1,
      ],
      "pagination": {"page":1,"per_page":20,"total":1,"total_pages":1},
    },
  },
  'GET /v1/users/:id': {
    description: [
      'Scope `admin:*`. One user. No request fields besides the id in the path.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" http://localhost:8080/v1/users/usr_DBkwdSBu5Zjwruv16ZmX',
      '```',
    ],
    response: example1,
  },
  'POST /v1/users/invite': {
    description: [
      'Scope `admin:*`; honours `Idempotency-Key`. Creates a user with `status: invited` and returns its `invite_token`',
      'once (stored only as a hash). Hand the token to the person: it works once, within 7 days, with',
      '`POST /v1/users/accept-invite`. An email address already in use is `409 invalid_request`.',
      '',
      '| Field | Type | Required | Rules |',
      '|---|---|---|---|',
      '| `email` | string | yes | an email address, at most 254 characters; unique (case-insensitive) |',
      '| `role` | string | yes | `owner`, `admin`, `operator` or `viewer` |',
      '| `name` | string | no | 1 to 100 characters; defaults to the part of the email before `@` |',
      '',
      '```sh',
      'curl -X POST http://localhost:8080/v1/users/invite -H "Authorization: Bearer $KEY" -H \'Content-Type: application/json\' \\',
      '  -d \'{"email": "ada@example.com", "role": "operator"}\'',
      '```',
    ],
    body: {"email":"ada@example.com","role":"operator"},
    response: { ...example1, "invite_token": "inv_A6bhU6OEjimiAwbCGZz4wI0LXMoZBuHzzTVtdLNN" },
  },
};
