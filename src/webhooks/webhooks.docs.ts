// The reference text and examples of the routes in webhooks.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

const example1 = {
  "id": "string",
  "url": "string",
  "events": [
    "string"
  ],
  "enabled": true,
  "has_secret": true,
  "secret_rotation_ends_at": "2019-08-24T14:15:22Z",
  "failing_since": "2019-08-24T14:15:22Z",
  "disabled_reason": "string",
  "created_at": "2019-08-24T14:15:22Z",
  "updated_at": "2019-08-24T14:15:22Z"
};

const example2 = {
  "id": "string",
  "webhook_id": "string",
  "event_id": "string",
  "event_type": "string",
  "sequence": 0,
  "status": "pending",
  "attempts": 0,
  "next_attempt_at": "2019-08-24T14:15:22Z",
  "status_code": 0,
  "duration_ms": 0,
  "error": "string",
  "response_excerpt": "string",
  "created_at": "2019-08-24T14:15:22Z",
  "updated_at": "2019-08-24T14:15:22Z",
  "delivered_at": "2019-08-24T14:15:22Z"
};

export const webhookDocs: RouteDocs = {
  'GET /v1/webhooks': {
    description: [
      'Scope `webhooks:write`. A list (see Lists):',
      '',
      '| Parameter | Rules |',
      '|---|---|',
      '| `page`, `per_page`, `sort`, `fields` | as for every list; sortable: `created_at`, `updated_at`, `url` |',
      '| `enabled` | `true` or `false` |',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" \'http://localhost:8080/v1/webhooks?enabled=true&sort=url\'',
      '```',
    ],
    response: {
      "data": [
        {
          "id": "wh_6Qm1yHc0Zt9rLw2KpXa4",
          "url": "http://erp.lan:9000/printfarm",
          "enabled": true,
          "…": "…"
        }
      ],
      "pagination": {
        "page": 1,
        "per_page": 20,
        "total": 1,
        "total_pages": 1
      }
    },
  },
  'POST /v1/webhooks': {
    description: [
      'Scope `webhooks:write`; honours `Idempotency-Key`. Subscribes a receiver; answers `201` with the record.',
      '',
      '| Field | Type | Required | Rules |',
      '|---|---|---|---|',
      '| `url` | string | yes | `http` or `https`, at most 2048 characters, without user name or password; its host must be allowed (see Restricting receiver hosts (guide: docs/webhooks.md)) |',
      '| `events` | array of strings | yes | 1 to 50 distinct entries: event names, `job.*`, `printer.*`, `material.*`, `file.*` or `*` |',
      '| `secret` | string | no | 16 to 256 characters: the HMAC key of `X-Signature` |',
      '| `enabled` | boolean | no | default `true` |',
      '',
      'Without `secret` the server makes one (`whsec_` and 32 letters and digits) and returns it **once**, as field',
      '`secret` of this response. A secret you send is never echoed. Bad input is `400 invalid_request` naming the field:',
      'a URL that is not `http`/`https` or carries a user name or password, an unknown event name, an unknown field, a',
      'host the organization does not allow. An install holds at most 100 webhooks; the next one is `403 quota_exceeded`.',
      '',
      '```sh',
      'curl -X POST http://localhost:8080/v1/webhooks -H "Authorization: Bearer $KEY" -H \'Content-Type: application/json\' \\',
      '  -d \'{"url": "http://erp.lan:9000/printfarm", "events": ["job.*", "material.low"]}\'',
      '```',
    ],
    body: {
      "url": "http://erp.lan:9000/printfarm",
      "events": [
        "job.*",
        "material.low"
      ]
    },
    response: {
      "id": "wh_6Qm1yHc0Zt9rLw2KpXa4",
      "url": "http://erp.lan:9000/printfarm",
      "events": [
        "job.*",
        "material.low"
      ],
      "enabled": true,
      "has_secret": true,
      "secret_rotation_ends_at": null,
      "failing_since": null,
      "disabled_reason": null,
      "created_at": "2026-11-23T16:00:00.000Z",
      "updated_at": "2026-11-23T16:00:00.000Z",
      "secret": "whsec_Vt3kQ0b8N1sYd6Lr2WmPz9cXe4Hg7JfA"
    },
  },
  'GET /v1/webhooks/:id': {
    description: [
      'Scope `webhooks:write`. One webhook (the bare record, never its secret). Unknown id: `404 resource_not_found`.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" http://localhost:8080/v1/webhooks/wh_6Qm1yHc0Zt9rLw2KpXa4',
      '```',
    ],
    response: example1,
  },
  'PATCH /v1/webhooks/:id': {
    description: [
      'Scope `webhooks:write`. Changes any of the create fields, at least one; absent fields stay. Answers `200` with the',
      'whole record. A new `secret` starts a 24-hour overlap with the old one (see Rotating a secret (guide: docs/webhooks.md));',
      '`enabled: true` turns a webhook back on after the server disabled it.',
      '',
      '| Field | Type | Rules |',
      '|---|---|---|',
      '| `url` | string | as on create |',
      '| `events` | array of strings | as on create: replaces the whole list |',
      '| `secret` | string | 16 to 256 characters |',
      '| `enabled` | boolean | `false` stops new deliveries; `true` resumes them and those still waiting |',
      '',
      '```sh',
      'curl -X PATCH http://localhost:8080/v1/webhooks/wh_6Qm1yHc0Zt9rLw2KpXa4 -H "Authorization: Bearer $KEY" \\',
      '  -H \'Content-Type: application/json\' -d \'{"events": ["*"], "enabled": true}\'',
      '```',
    ],
    body: {
      "events": [
        "*"
      ],
      "enabled": true
    },
    response: example1,
  },
  'DELETE /v1/webhooks/:id': {
    description: [
      'Scope `webhooks:write`. Deletes the webhook and its delivery history: `204` without a body.',
      '',
      '```sh',
      'curl -X DELETE -H "Authorization: Bearer $KEY" http://localhost:8080/v1/webhooks/wh_6Qm1yHc0Zt9rLw2KpXa4',
      '```',
    ],
  },
  'POST /v1/webhooks/:id/test': {
    description: [
      'Scope `webhooks:write`. No request body. Sends a `webhook.test` event (its `data.object` is the webhook record) to',
      'this webhook now, even when it is disabled, and answers `200` with the outcome once the receiver answered or the',
      'attempt failed. `status_code` is `null` when the receiver could not be reached; `error` then says why. The test',
      'delivery shows in the history but is not retried.',
      '',
      '```sh',
      'curl -X POST -H "Authorization: Bearer $KEY" http://localhost:8080/v1/webhooks/wh_6Qm1yHc0Zt9rLw2KpXa4/test',
      '```',
    ],
    response: {
      "delivered": true,
      "status_code": 204,
      "duration_ms": 3,
      "error": null,
      "response_excerpt": null,
      "event_id": "evt_8Hn2Wq5Tz0Lc3Vm7Rb1K",
      "delivery_id": "dlv_4Kp9Xs2Nd7Qa1Wf6Jz3M"
    },
  },
  'GET /v1/webhooks/:id/deliveries': {
    description: [
      'Scope `webhooks:write`. Extension: the webhook\'s delivery history, newest first (default sort `-sequence`). A list',
      '(see Lists):',
      '',
      '| Parameter | Rules |',
      '|---|---|',
      '| `page`, `per_page`, `sort`, `fields` | as for every list; sortable: `created_at`, `updated_at`, `sequence` |',
      '| `status` | `pending`, `delivered` or `failed` |',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" \'http://localhost:8080/v1/webhooks/wh_6Qm1yHc0Zt9rLw2KpXa4/deliveries?status=failed\'',
      '```',
    ],
    response: {
      "data": [
        {
          "id": "dlv_4Kp9Xs2Nd7Qa1Wf6Jz3M",
          "webhook_id": "wh_6Qm1yHc0Zt9rLw2KpXa4",
          "event_id": "evt_2Jd8sLqP0aXc5VbN7mTz",
          "event_type": "job.completed",
          "sequence": 42,
          "status": "failed",
          "attempts": 11,
          "next_attempt_at": null,
          "status_code": 503,
          "duration_ms": 12,
          "error": "receiver answered 503",
          "response_excerpt": "Service Unavailable",
          "created_at": "2026-11-22T16:00:00.000Z",
          "updated_at": "2026-11-23T15:52:10.000Z",
          "delivered_at": null
        }
      ],
      "pagination": {
        "page": 1,
        "per_page": 20,
        "total": 1,
        "total_pages": 1
      }
    },
  },
  'GET /v1/webhooks/:id/deliveries/:delivery_id': {
    description: [
      'Scope `webhooks:write`. Extension: one delivery of this webhook (the bare record). `404 resource_not_found` when the',
      'webhook is unknown or the delivery belongs to another one.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" http://localhost:8080/v1/webhooks/wh_6Qm1yHc0Zt9rLw2KpXa4/deliveries/dlv_4Kp9Xs2Nd7Qa1Wf6Jz3M',
      '```',
    ],
    response: example2,
  },
  'POST /v1/webhooks/:id/deliveries/:delivery_id/retry': {
    description: [
      'Scope `webhooks:write`. Extension: sends that delivery again now, whatever its state. No request body. Answers `202`',
      'with the delivery, `pending` and due now; the attempt follows at once. Its `attempts` count goes on, so a delivery',
      'that had used up its retries gets this one attempt.',
      '',
      '```sh',
      'curl -X POST -H "Authorization: Bearer $KEY" \\',
      '  http://localhost:8080/v1/webhooks/wh_6Qm1yHc0Zt9rLw2KpXa4/deliveries/dlv_4Kp9Xs2Nd7Qa1Wf6Jz3M/retry',
      '```',
    ],
    response: example2,
  },
};
