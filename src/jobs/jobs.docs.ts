// The reference text and examples of the routes in jobs.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

const example1 = {
  "id": "job_7Hq2LmN8pR3tV6wY1zAb",
  "name": "bracket",
  "status": "printing",
  "priority": "normal",
  "printer_id": "prt_4fQ9x2LmN8pR3tV6wY1z",
  "progress": 42.5,
  "file_url": null,
  "file_id": "file_Qm3Zt9rLw2KpXa4B7cDe",
  "thumbnail_url": "/v1/files/file_Qm3Zt9rLw2KpXa4B7cDe/thumbnail",
  "file_deleted": false,
  "estimated_duration": 4320,
  "elapsed_time": 1904,
  "estimated_remaining": 2530,
  "material": {
    "type": "PETG",
    "color": "black",
    "estimated_usage": 41.5,
    "used": {
      "property1": 0,
      "property2": 0
    },
    "used_basis": "wire"
  },
  "origin": "queue",
  "slicer_api": "octoprint",
  "cost": 0,
  "nozzle_diameter": 0.4,
  "group": null,
  "tags": [
    "customer-17"
  ],
  "batch_id": null,
  "waiting_reason": null,
  "waiting_detail": null,
  "pending_action": "pause",
  "error": null,
  "created_at": "2026-11-23T09:00:00.000Z",
  "started_at": "2026-11-23T09:01:12.000Z",
  "completed_at": null,
  "updated_at": "2026-11-23T09:01:12.000Z"
};

export const jobDocs: RouteDocs = {
  'GET /v1/jobs': {
    description: [
      '| Query parameter | Meaning |',
      '|---|---|',
      '| `status` | `queued`, `printing`, `paused`, `completed`, `failed` or `cancelled` |',
      '| `printer_id` | jobs pinned to or run on this printer |',
      '| `priority` | `low`, `normal`, `high` or `urgent` |',
      '| `batch_id` | the jobs of one `copies` batch |',
      '| `group` | jobs restricted to this group |',
      '| `tag` | jobs carrying this tag |',
      '| `from`, `to` | bounds on `created_at`; a date alone (`2026-11-23`) means that whole UTC day |',
      '| `page` | from 1 (default 1) |',
      '| `per_page` | 1 to 100 (default 20) |',
      '| `sort` | comma-separated, `-` for descending: `created_at`, `priority` (by urgency, not alphabet), `name`, `status`, `started_at`, `completed_at` (default `-created_at`; ties by id) |',
      '| `fields` | comma-separated record fields to return |',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" \'http://localhost:8080/v1/jobs?status=queued&sort=-priority,created_at&fields=id,name,priority,waiting_reason\'',
      '```',
      '',
      'A printer\'s job history is `printer_id` with a sort: `?printer_id=prt_4fQ9x2LmN8pR3tV6wY1z&sort=-created_at` (every job',
      'pinned to or run on it, newest first), or `sort=-completed_at` for the ended ones first, most recent first (jobs not',
      'ended yet, with `completed_at: null`, come last).',
    ],
    response: {
      "data": [
        {
          "id": "job_7Hq2LmN8pR3tV6wY1zAb",
          "name": "bracket",
          "priority": "urgent",
          "waiting_reason": "printers_busy"
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
  'GET /v1/jobs/:id': {
    description: [
      'The job itself (a bare object), with live `progress`, `elapsed_time` and `estimated_remaining` while it prints.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" http://localhost:8080/v1/jobs/job_7Hq2LmN8pR3tV6wY1zAb',
      '```',
    ],
    response: example1,
  },
  'POST /v1/jobs': {
    description: [
      'Queues a print, as JSON with `file_url` (the server downloads the file before it answers) or `file_id` (a file',
      'already stored, from `GET /v1/files`: a slicer\'s upload without print, or a file printed before), or',
      'as `multipart/form-data` with the file in a part named `file` and the other fields as text parts (`tags` repeated or',
      'comma-separated). The file is checked and stored once by content (see Files); its slicer metadata fills',
      '`estimated_duration`, `material.estimated_usage`, `nozzle_diameter` and, when the request names none,',
      '`material.type`. Answer: `201 { "success": true, "data": <the first job, with job_ids> }`. Honours `Idempotency-Key`.',
      '',
      '| Body field | Type | Rules |',
      '|---|---|---|',
      '| `file_url` | string | JSON only, this or `file_id`: `http` or `https`, up to 2048 characters |',
      '| `file_id` | string | extension, JSON only, this or `file_url`: a stored file\'s id (`file_…`); it is queued as stored, nothing is downloaded, and counts as a use of the file (its `last_used_at`) |',
      '| `file` | file | multipart only, required: the G-code file |',
      '| `name` | string | 1 to 200 characters; default the file name |',
      '| `priority` | string | `low`, `normal` (default), `high`, `urgent` |',
      '| `printer_id` | string | pins the job to this printer; an unknown id is `400 invalid_printer` |',
      '| `group` | string | extension: only printers of this group take it |',
      '| `material` | string or object | a type (`"PLA"`), or extension `{ "type": "PLA", "color": "red" }`; multipart: `material` and `material_color` |',
      '| `copies` | integer | 1 to 100 (default 1): that many jobs, one `batch_id`, spread over every fitting printer |',
      '| `tags` | array of string | at most 20, each 1 to 50 characters, no duplicates |',
      '',
      'Errors: `400 invalid_request` naming the field (bad URL, a download that failed, unknown field, both or neither of',
      '`file_url` and `file_id`...), `400 invalid_printer`, `404 resource_not_found` for an unknown `file_id`, `410',
      'file_deleted` for a `file_id` whose content pruning removed (upload the file again), `413` for a file',
      'over 1 GiB, `422 file_invalid` for a file that is not usable G-code, `422 file_url_forbidden` for a `file_url` (or a',
      'redirect) the server may not reach (see Which hosts a download may reach).',
      '',
      '```sh',
      'curl -X POST http://localhost:8080/v1/jobs -H "Authorization: Bearer $KEY" -H \'Content-Type: application/json\' \\',
      '  -d \'{"file_url": "http://nas.lan/gcode/bracket.gcode", "material": {"type": "PETG", "color": "black"}, "tags": ["customer-17"]}\'',
      '```',
      '',
      '```sh',
      'curl -X POST http://localhost:8080/v1/jobs -H "Authorization: Bearer $KEY" \\',
      '  -F file=@bracket.gcode -F priority=high -F copies=3 -F material=PETG',
      '```',
      '',
      '```sh',
      'curl -X POST http://localhost:8080/v1/jobs -H "Authorization: Bearer $KEY" -H \'Content-Type: application/json\' \\',
      '  -d \'{"file_id": "file_3kR9sQ2mXb7LpV4nT8wA", "group": "bay-1", "copies": 2}\'',
      '```',
    ],
    body: {
      "file_url": "http://nas.lan/gcode/bracket.gcode",
      "material": {
        "type": "PETG",
        "color": "black"
      },
      "tags": [
        "customer-17"
      ]
    },
    response: {
      "success": true,
      "data": {
        "id": "job_7Hq2LmN8pR3tV6wY1zAb",
        "name": "bracket",
        "status": "queued",
        "priority": "normal",
        "printer_id": null,
        "progress": 0,
        "file_url": "http://nas.lan/gcode/bracket.gcode",
        "file_id": "file_Qm3Zt9rLw2KpXa4B7cDe",
        "thumbnail_url": null,
        "estimated_duration": 4320,
        "elapsed_time": 0,
        "estimated_remaining": 4320,
        "material": {
          "type": "PETG",
          "color": "black",
          "estimated_usage": 41.5
        },
        "nozzle_diameter": 0.4,
        "group": null,
        "tags": [
          "customer-17"
        ],
        "batch_id": null,
        "waiting_reason": null,
        "error": null,
        "created_at": "2026-11-23T09:00:00.000Z",
        "started_at": null,
        "completed_at": null,
        "updated_at": "2026-11-23T09:00:00.000Z",
        "job_ids": [
          "job_7Hq2LmN8pR3tV6wY1zAb"
        ]
      }
    },
  },
  'PATCH /v1/jobs/:id': {
    description: [
      '`name` and `tags` change at any time; `priority`, `printer_id`, `group` and `material` only while the job is',
      'queued (else `409 invalid_state`). Answer: `200` with the whole job.',
      '',
      '| Body field | Type | Rules |',
      '|---|---|---|',
      '| `name` | string | 1 to 200 characters |',
      '| `tags` | array of string | as on create |',
      '| `priority` | string | `low`, `normal`, `high`, `urgent` |',
      '| `printer_id` | string or null | pin to this printer; `null` unpins |',
      '| `group` | string or null | restrict to this group; `null` lifts it |',
      '| `material` | string, object or null | as on create; `null` removes the requirement |',
      '',
      '```sh',
      'curl -X PATCH http://localhost:8080/v1/jobs/job_7Hq2LmN8pR3tV6wY1zAb -H "Authorization: Bearer $KEY" \\',
      '  -H \'Content-Type: application/json\' -d \'{"priority": "urgent"}\'',
      '```',
    ],
    body: {
      "priority": "urgent"
    },
    response: example1,
  },
  'DELETE /v1/jobs/:id': {
    description: [
      'Cancels the job: a queued one at once; a printing or paused one once the firmware profile\'s cancel script has run its',
      'lines that move filament (a retract or purge there is the job\'s filament); the printer finishes the rest of the',
      'script (heaters off, the head lifted and parked, `M84`, which on Marlin answers only when every move is done) on its',
      'own, and a disconnect or a server stop waits up to 2 s for it. Answer: `200` with the job, `status: cancelled`. While',
      'the printer waits in a heat-up or dwell its firmware cannot break (Klipper\'s `M190`: real Klipper answers the cancel',
      'only when the wait ends), or when a network printer has not ended the print within about 1.2 s (OctoPrint shows',
      'Cancelling while Marlin runs its buffered moves), the answer is `202` with the job still `printing` and',
      '`pending_action: cancel`; it is cancelled (`job.cancelled`) the moment the printer is done. A job',
      'that already ended is `409 invalid_state`.',
      '',
      '```sh',
      'curl -X DELETE -H "Authorization: Bearer $KEY" http://localhost:8080/v1/jobs/job_7Hq2LmN8pR3tV6wY1zAb',
      '```',
    ],
    response: example1,
  },
};
