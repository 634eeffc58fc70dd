// The reference text and examples of the routes in api-keys.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

const example1 = {
  "id": "key_JCdn1f8LGArwWGvrvZte",
  "name": "backup script",
  "scopes": ["admin:*"],
  "prefix": "svc_live_apdcAk",
  "environment": "live",
  "created_at": "2026-01-01T00:00:00.000Z",
  "last_used_at": null,
  "expires_at": null,
  "revoked_at": null,
  "status": "active",
};

const example2 = { ...example1, "key": "svc_live_apdcAkUFPMOp6DWX7PXGvPhbddiIyMaRPOV6XhGn" };

export const apiKeyDocs: RouteDocs = {
  'POST /v1/api-keys': {
    description: [
      'Scope `admin:*`; honours `Idempotency-Key`. Creates a key of this server\'s environment.',
      '',
      '| Field | Type | Required | Rules |',
      '|---|---|---|---|',
      '| `name` | string | yes | 1 to 100 characters, not blank: what the key is for |',
      '| `scopes` | array of strings | yes | 1 to 32 scope names, wildcards allowed; only scopes the calling key holds |',
      '',
      '```sh',
      'curl -X POST http://localhost:8080/v1/api-keys -H "Authorization: Bearer $KEY" -H \'Content-Type: application/json\' \\',
      '  -d \'{"name": "backup script", "scopes": ["admin:*"]}\'',
      '```',
    ],
    body: {"name":"backup script","scopes":["admin:*"]},
    response: example2,
  },
  'GET /v1/api-keys': {
    description: [
      'Scope `admin:*`. The keys of this server\'s environment, never their values. A list (see Lists):',
      '',
      '| Parameter | Rules |',
      '|---|---|',
      '| `page`, `per_page`, `sort`, `fields` | as for every list; sortable: `created_at`, `name`, `last_used_at` |',
      '| `status` | `active`, `expiring` (rolled, inside its 24 h overlap), `expired` or `revoked` |',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" \'http://localhost:8080/v1/api-keys?status=active&sort=name\'',
      '```',
    ],
    response: {
      "keys": [
        { ...example1, "…": "…" },
      ],
      "pagination": {"page":1,"per_page":20,"total":1,"total_pages":1},
    },
  },
  'GET /v1/api-keys/current': {
    description: [
      'Any key. The record of the key making the request (the dashboard shows its `name`). No request fields.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" http://localhost:8080/v1/api-keys/current',
      '```',
    ],
    response: example1,
  },
  'DELETE /v1/api-keys/:id': {
    description: [
      'Scope `admin:*`. Revokes the key: refused from its very next request. Answers the record with `revoked_at` set and',
      '`status: revoked`. No request fields besides the id in the path.',
      '',
      '```sh',
      'curl -X DELETE -H "Authorization: Bearer $KEY" http://localhost:8080/v1/api-keys/key_JCdn1f8LGArwWGvrvZte',
      '```',
    ],
    response: example1,
  },
  'POST /v1/api-keys/:id/roll': {
    description: [
      'Scope `admin:*`. A new key (new id and value) with the same name and scopes; the old one keeps working for 24 hours',
      '(`status: expiring`, `expires_at` set). A revoked or already rolled key is `409 invalid_state`. No request body.',
      '',
      '```sh',
      'curl -X POST -H "Authorization: Bearer $KEY" http://localhost:8080/v1/api-keys/key_JCdn1f8LGArwWGvrvZte/roll',
      '```',
    ],
    response: example2,
  },
  'GET /v1/auth/test': {
    description: [
      'Any key. Checks that a key works and says what it is. No request fields.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" http://localhost:8080/v1/auth/test',
      '```',
    ],
    response: {
      "authenticated": true,
      "key_id": "key_0mN7CAgyIL9mroJkqrxS",
      "organization": "My print farm",
      "environment": "live",
      "scopes": ["admin:*"],
    },
  },
};
