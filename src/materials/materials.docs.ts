// The reference text and examples of the routes in materials.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

const example1 = {
  "id": "string",
  "type": "string",
  "brand": "string",
  "color": "string",
  "spool_weight": 0,
  "remaining_weight": 0,
  "empty_spool_weight": 0,
  "cost_per_kg": 0,
  "diameter": 0,
  "density": 0,
  "printer_id": "string",
  "tool": 0,
  "reorder_threshold": 0,
  "status": "active",
  "lot": "string",
  "notes": "string",
  "created_at": "2019-08-24T14:15:22Z",
  "updated_at": "2019-08-24T14:15:22Z"
};

export const materialDocs: RouteDocs = {
  'GET /v1/materials': {
    description: [
      'Scope `materials:read`. A list (see Lists):',
      '',
      '| Parameter | Rules |',
      '|---|---|',
      '| `page`, `per_page`, `sort`, `fields` | as for every list; sortable: `created_at`, `updated_at`, `type`, `brand`, `color`, `remaining_weight`, `cost_per_kg` |',
      '| `type`, `color`, `brand` | exact value, case-insensitive |',
      '| `status` | `active`, `empty` or `archived` |',
      '| `printer_id` | spools loaded on this printer |',
      '| `low_stock` | `true`: `remaining_weight` at or below `reorder_threshold`; `false`: the others (no threshold counts as not low) |',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" \'http://localhost:8080/v1/materials?low_stock=true&sort=remaining_weight\'',
      '```',
    ],
    response: {
      "data": [
        {
          "id": "mat_8JbQ2nV5sX1cR7tK0wLz",
          "type": "PETG",
          "remaining_weight": 120.5,
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
  'POST /v1/materials': {
    description: [
      'Scope `materials:write`; honours `Idempotency-Key`. Adds a spool; answers `201` with the record.',
      '',
      '| Field | Type | Required | Rules |',
      '|---|---|---|---|',
      '| `type` | string | yes | 1 to 50 characters |',
      '| `spool_weight` | number | yes | grams, above 0, at most 100000 |',
      '| `remaining_weight` | number | no | grams, 0 to 100000; default `spool_weight` |',
      '| `brand` | string or null | no | up to 100 characters |',
      '| `color` | string or null | no | up to 50 characters |',
      '| `empty_spool_weight` | number or null | no | grams, 0 to 100000 |',
      '| `cost_per_kg` | number or null | no | 0 to 1000000 |',
      '| `diameter` | number | no | mm, 1 to 3.5; default 1.75 |',
      '| `density` | number | no | g/cm³, 0.5 to 3; default by type (required for unknown types) |',
      '| `printer_id` | string or null | no | an existing printer (`400 invalid_printer` otherwise): loads the spool there |',
      '| `tool` | integer | no | 0 to 15; default 0 |',
      '| `reorder_threshold` | number or null | no | grams, 0 to 100000 |',
      '| `lot` | string or null | no | up to 100 characters |',
      '| `notes` | string or null | no | up to 2000 characters, may span lines |',
      '',
      'Loading a spool on a tool that holds another takes that one off (its `printer_id` becomes null). A spool created',
      'at or below its threshold fires no `material.low` (it did not cross it); one created with `remaining_weight: 0` is',
      '`empty`. Bad input is `400 invalid_request` naming the field; an unknown field is refused.',
      '',
      '```sh',
      'curl -X POST http://localhost:8080/v1/materials -H "Authorization: Bearer $KEY" -H \'Content-Type: application/json\' \\',
      '  -d \'{"type": "PETG", "brand": "Prusament", "color": "Galaxy Black", "spool_weight": 1000, "empty_spool_weight": 201,',
      '       "cost_per_kg": 29.99, "reorder_threshold": 150, "printer_id": "prt_4fQ9x2LmN8pR3tV6wY1z", "tool": 0}\'',
      '```',
    ],
    body: {
      "type": "PETG",
      "brand": "Prusament",
      "color": "Galaxy Black",
      "spool_weight": 1000,
      "empty_spool_weight": 201,
      "cost_per_kg": 29.99,
      "reorder_threshold": 150,
      "printer_id": "prt_4fQ9x2LmN8pR3tV6wY1z",
      "tool": 0
    },
    response: example1,
  },
  'GET /v1/materials/:id': {
    description: [
      'Scope `materials:read`. One spool. Unknown id: `404 resource_not_found`.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" http://localhost:8080/v1/materials/mat_8JbQ2nV5sX1cR7tK0wLz',
      '```',
    ],
    response: example1,
  },
  'GET /v1/materials/:id/usage': {
    description: [
      'Extension: the spool\'s usage history, one line per job and tool that drew from it (see',
      'Filament measured on the wire (guide: docs/materials.md)). Scope `materials:read`; unknown spool',
      '`404 resource_not_found`; a spool nothing printed from yet has an empty `data`. A list (see Lists):',
      '',
      '| Parameter | Rules |',
      '|---|---|',
      '| `page`, `per_page`, `sort`, `fields` | as for every list; sortable: `at` (default `-at`: newest first), `grams`; ties by job and tool |',
      '',
      '| Field | Type | Meaning |',
      '|---|---|---|',
      '| `job_id` | string | the job |',
      '| `job_name` | string | its name |',
      '| `job_status` | string | its status; while `printing` or `paused` the line\'s `grams` still grow |',
      '| `printer_id` | string or null | the printer the job ran on |',
      '| `tool` | integer | the tool the spool fed |',
      '| `grams` | number | filament the job drew from the spool on that tool, measured on the wire (0.001 g) |',
      '| `cost` | number or null | what that filament cost at the spool\'s `cost_per_kg`; `null` without a price |',
      '| `at` | string | when the job ended (`completed_at`, whatever the outcome); while it still prints, when it started |',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" \'http://localhost:8080/v1/materials/mat_8JbQ2nV5sX1cR7tK0wLz/usage?per_page=50\'',
      '```',
      '',
      'A printer\'s job history is the jobs list filtered by printer:',
      '`GET /v1/jobs?printer_id=prt_4fQ9x2LmN8pR3tV6wY1z&sort=-created_at` (see `GET /v1/jobs`).',
    ],
    response: {
      "data": [
        {
          "job_id": "job_7Hq2LmN8pR3tV6wY1zAb",
          "job_name": "bracket",
          "job_status": "completed",
          "printer_id": "prt_4fQ9x2LmN8pR3tV6wY1z",
          "tool": 0,
          "grams": 18.412,
          "cost": 0.552,
          "at": "2026-11-23T16:42:10.000Z"
        }
      ],
      "pagination": {
        "page": 1,
        "per_page": 50,
        "total": 1,
        "total_pages": 1
      }
    },
  },
  'PATCH /v1/materials/:id': {
    description: [
      'Scope `materials:write`. Any field of the create body (null clears an optional one), plus two of its own:',
      '',
      '| Field | Type | Rules |',
      '|---|---|---|',
      '| `type`, `spool_weight`, `remaining_weight`, `brand`, `color`, `empty_spool_weight`, `cost_per_kg`, `diameter`, `density`, `printer_id`, `tool`, `reorder_threshold`, `lot`, `notes` | as on create | all optional; changing `type` keeps the stored `density` unless given |',
      '| `measured_gross_weight` | number | weigh-in: what a scale shows for spool + filament (g). `remaining_weight` becomes this minus `empty_spool_weight` (given in the same PATCH or stored). No tare known, a weight below the tare, or `remaining_weight` in the same PATCH: `400` |',
      '| `status` | string | `archived` (takes the spool out of use and unloads it) or `active` (brings an archived spool back; it is `empty` again if nothing is left) |',
      '',
      '- **Load / unload / swap:** `{"printer_id": "prt_…", "tool": 1}` loads it on that tool and unloads the spool that',
      '  was there; `{"printer_id": null}` unloads it. An archived spool cannot be loaded (`409 invalid_state`).',
      '- **Refill / correction:** `remaining_weight` or a weigh-in. A level above `reorder_threshold` re-arms',
      '  `material.low`; an `empty` spool with filament again is `active`.',
      '- Answers `200` with the whole record. An empty body is `400`.',
      '',
      'A weigh-in from a kitchen scale, then moving the spool to tool 1 of another printer:',
      '',
      '```sh',
      'curl -X PATCH http://localhost:8080/v1/materials/mat_8JbQ2nV5sX1cR7tK0wLz -H "Authorization: Bearer $KEY" \\',
      '  -H \'Content-Type: application/json\' -d \'{"measured_gross_weight": 734.5}\'',
      'curl -X PATCH http://localhost:8080/v1/materials/mat_8JbQ2nV5sX1cR7tK0wLz -H "Authorization: Bearer $KEY" \\',
      '  -H \'Content-Type: application/json\' -d \'{"printer_id": "prt_9aB3cD4eF5gH6iJ7kL8m", "tool": 1}\'',
      '```',
    ],
    body: {
      "measured_gross_weight": 734.5
    },
    response: example1,
  },
  'DELETE /v1/materials/:id': {
    description: [
      'Scope `materials:write`. Extension: archives the spool (`status: archived`, unloaded) and answers `204`; it stays',
      'readable and the jobs that used it keep pointing at it. Archiving again is fine. Unknown id: `404`.',
      '',
      '```sh',
      'curl -X DELETE -H "Authorization: Bearer $KEY" http://localhost:8080/v1/materials/mat_8JbQ2nV5sX1cR7tK0wLz',
      '```',
    ],
  },
};
