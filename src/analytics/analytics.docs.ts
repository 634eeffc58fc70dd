// The reference text and examples of the routes in analytics.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

export const analyticsDocs: RouteDocs = {
  'GET /v1/analytics/fleet': {
    description: [
      '| Query parameter | Meaning |',
      '|---|---|',
      '| `from` | start of the period (date or date-time); default 30 days before `to` |',
      '| `to` | end of the period, exclusive (a date includes that whole UTC day); default now |',
      '| `group` | only printers with this `group_name` (1 to 100 characters) |',
      '',
      '| Metric | Definition |',
      '|---|---|',
      '| `total_printers` | printers in scope (all, or the group) |',
      '| `active_printers` | printers that printed at some moment of the period |',
      '| `utilization_rate` | printing seconds inside the period / (`total_printers` × period seconds); 0 without printers |',
      '| `jobs_completed` | jobs that completed inside the period |',
      '| `success_rate` | completed / (completed + failed) among jobs that ended inside the period; cancellations are left out; 0 when none ended |',
      '| `total_print_time` | printing seconds inside the period (pauses excluded) |',
      '| `material_consumed` | grams of filament used inside the period |',
      '| `estimated_cost` | filament + machine time at `hourly_rate` + energy at `energy_cost_per_kwh`, see Cost |',
      '',
      '`currency` (extension) is the currency of `estimated_cost`.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" \'http://localhost:8080/v1/analytics/fleet?from=2026-03-01&to=2026-03-02&group=east\'',
      '```',
    ],
    response: {
      "period": {
        "from": "2026-03-01T00:00:00.000Z",
        "to": "2026-03-03T00:00:00.000Z"
      },
      "metrics": {
        "total_printers": 3,
        "active_printers": 3,
        "utilization_rate": 0.0712,
        "jobs_completed": 3,
        "success_rate": 0.75,
        "total_print_time": 36900,
        "material_consumed": 215,
        "estimated_cost": 25.74
      },
      "currency": "EUR"
    },
  },
  'GET /v1/analytics/printers/:id': {
    description: [
      'One printer: `printer` (`id`, `name`, `group`), `metrics` (the fleet metrics of this printer alone, without the',
      'printer counts), and the job statistics of its jobs as in `GET /v1/analytics/jobs`. Unknown printer: 404.',
      '',
      '| Query parameter | Meaning |',
      '|---|---|',
      '| `from` | start of the period; default 30 days before `to` |',
      '| `to` | end of the period, exclusive; default now |',
      '| `interval` | `hour`, `day` (default), `week` or `month`: width of a `series` bucket |',
      '| `tz` | IANA time zone of the buckets; default the organization\'s `timezone` |',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" \'http://localhost:8080/v1/analytics/printers/prt_B?from=2026-03-01&to=2026-03-02\'',
      '```',
    ],
    response: {
      "printer": {
        "id": "prt_B",
        "name": "Printer B",
        "group": "east"
      },
      "period": {
        "from": "2026-03-01T00:00:00.000Z",
        "to": "2026-03-03T00:00:00.000Z"
      },
      "counts": {
        "created": 3,
        "completed": 0,
        "failed": 1,
        "cancelled": 1,
        "queued": 0,
        "printing": 0,
        "paused": 0
      },
      "success_rate": 0,
      "durations": {
        "completed_jobs": 0,
        "average": null,
        "min": null,
        "max": null,
        "total_print_time": 9000
      },
      "queue_wait": {
        "jobs": 3,
        "average": 1200,
        "max": 3600
      },
      "failure_reasons": [
        {
          "code": "thermal_runaway",
          "count": 1
        }
      ],
      "interval": "day",
      "timezone": "UTC",
      "series": [
        {
          "start": "2026-03-01T00:00:00.000Z",
          "label": "2026-03-01",
          "completed": 0,
          "failed": 0,
          "cancelled": 0,
          "print_time": 0
        },
        {
          "start": "2026-03-02T00:00:00.000Z",
          "label": "2026-03-02",
          "completed": 0,
          "failed": 1,
          "cancelled": 1,
          "print_time": 9000
        }
      ],
      "metrics": {
        "utilization_rate": 0.0521,
        "jobs_completed": 0,
        "success_rate": 0,
        "total_print_time": 9000,
        "material_consumed": 25,
        "estimated_cost": 5.58
      },
      "currency": "EUR"
    },
  },
  'GET /v1/analytics/jobs': {
    description: [
      '| Query parameter | Meaning |',
      '|---|---|',
      '| `from` | start of the period; default 30 days before `to` |',
      '| `to` | end of the period, exclusive; default now |',
      '| `group` | only jobs run on printers of this group |',
      '| `printer_id` | only jobs run on this printer |',
      '| `interval` | `hour`, `day` (default), `week` or `month` |',
      '| `tz` | IANA time zone of the buckets; default the organization\'s `timezone` |',
      '',
      '| Field | Meaning |',
      '|---|---|',
      '| `counts.created` | jobs created inside the period |',
      '| `counts.completed`, `counts.failed`, `counts.cancelled` | jobs that reached that state inside the period (by `completed_at`) |',
      '| `counts.queued`, `counts.printing`, `counts.paused` | jobs in that state now (a snapshot, not bound to the period) |',
      '| `success_rate` | completed / (completed + failed), cancellations left out |',
      '| `durations` | of jobs completed inside the period: `completed_jobs`, `average`, `min`, `max` of `elapsed_time` (s); `total_print_time`: printing seconds inside the period of all jobs |',
      '| `queue_wait` | of jobs started inside the period: `jobs`, `average` and `max` of `started_at` − `created_at` (s); `null` without jobs |',
      '| `failure_reasons` | failed jobs of the period by `error.code` (`unknown` when none), most frequent first |',
      '| `series` | per bucket: `completed`, `failed`, `cancelled` (by `completed_at`) and `print_time` (printing seconds inside the bucket) |',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" \'http://localhost:8080/v1/analytics/jobs?from=2026-03-01&to=2026-03-02&tz=Europe/Berlin\'',
      '```',
    ],
    response: {
      "period": {
        "from": "2026-03-01T00:00:00.000Z",
        "to": "2026-03-03T00:00:00.000Z"
      },
      "counts": {
        "created": 6,
        "completed": 3,
        "failed": 1,
        "cancelled": 2,
        "queued": 0,
        "printing": 1,
        "paused": 0
      },
      "success_rate": 0.75,
      "durations": {
        "completed_jobs": 3,
        "average": 10200,
        "min": 5400,
        "max": 18000,
        "total_print_time": 36900
      },
      "queue_wait": {
        "jobs": 5,
        "average": 720,
        "max": 3600
      },
      "failure_reasons": [
        {
          "code": "thermal_runaway",
          "count": 1
        }
      ],
      "interval": "day",
      "timezone": "Europe/Berlin",
      "series": [
        {
          "start": "2026-02-28T23:00:00.000Z",
          "label": "2026-03-01",
          "completed": 3,
          "failed": 0,
          "cancelled": 1,
          "print_time": 27900
        },
        {
          "start": "2026-03-01T23:00:00.000Z",
          "label": "2026-03-02",
          "completed": 0,
          "failed": 1,
          "cancelled": 1,
          "print_time": 5400
        },
        {
          "start": "2026-03-02T23:00:00.000Z",
          "label": "2026-03-03",
          "completed": 0,
          "failed": 0,
          "cancelled": 0,
          "print_time": 3600
        }
      ]
    },
  },
  'GET /v1/analytics/materials': {
    description: [
      '| Query parameter | Meaning |',
      '|---|---|',
      '| `from` | start of the period; default 30 days before `to` |',
      '| `to` | end of the period, exclusive; default now |',
      '| `group` | only jobs run on printers of this group |',
      '| `type` | only filament of this type (e.g. `PLA`; 1 to 50 characters) |',
      '| `interval` | `hour`, `day` (default), `week` or `month` |',
      '| `tz` | IANA time zone of the buckets; default the organization\'s `timezone` |',
      '',
      '| Field | Meaning |',
      '|---|---|',
      '| `totals` | `grams` and `filament_cost` used inside the period (equals the fleet\'s `material_consumed` without `type`) |',
      '| `by_type`, `by_color`, `by_spool` | `grams` and `cost` per type, per type and colour, per spool (`material_id`, `brand`; `null` for filament not booked to a spool); most grams first |',
      '| `cost_per_part` | jobs completed inside the period, whole jobs: `completed_jobs`, `total_cost` (filament + machine + energy, see Cost; not narrowed by `type`), `average` per job (`null` without jobs) |',
      '| `series` | per bucket: `grams` and `cost` used inside the bucket |',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" \'http://localhost:8080/v1/analytics/materials?from=2026-03-01&to=2026-03-02\'',
      '```',
    ],
    response: {
      "period": {
        "from": "2026-03-01T00:00:00.000Z",
        "to": "2026-03-03T00:00:00.000Z"
      },
      "currency": "EUR",
      "totals": {
        "grams": 215,
        "filament_cost": 5
      },
      "by_type": [
        {
          "type": "PLA",
          "grams": 145,
          "cost": 3.5
        },
        {
          "type": "PETG",
          "grams": 70,
          "cost": 1.5
        }
      ],
      "by_color": [
        {
          "type": "PLA",
          "color": "black",
          "grams": 125,
          "cost": 3
        },
        {
          "type": "PETG",
          "color": "red",
          "grams": 70,
          "cost": 1.5
        },
        {
          "type": "PLA",
          "color": "white",
          "grams": 20,
          "cost": 0.5
        }
      ],
      "by_spool": [
        {
          "material_id": "mat_1",
          "brand": "Acme",
          "type": "PLA",
          "color": "black",
          "grams": 100,
          "cost": 2.5
        },
        {
          "material_id": null,
          "brand": null,
          "type": "PETG",
          "color": "red",
          "grams": 70,
          "cost": 1.5
        }
      ],
      "cost_per_part": {
        "completed_jobs": 3,
        "total_cost": 22.21,
        "average": 7.4
      },
      "interval": "day",
      "timezone": "UTC",
      "series": [
        {
          "start": "2026-03-01T00:00:00.000Z",
          "label": "2026-03-01",
          "grams": 190,
          "cost": 4.5
        },
        {
          "start": "2026-03-02T00:00:00.000Z",
          "label": "2026-03-02",
          "grams": 25,
          "cost": 0.5
        }
      ]
    },
  },
  'GET /v1/analytics/export': {
    description: [
      'A download (`Content-Disposition: attachment`), streamed page by page in constant memory, so a year of jobs is fine.',
      '',
      '| Query parameter | Meaning |',
      '|---|---|',
      '| `dataset` | required: `jobs` (one row per job created in the period), `materials` (one row per tool of each job that ended in the period: `job_id`, `tool`, `material_id`, `brand`, `type`, `color`, `grams`, `cost`) or `printers` (one row per printer with its metrics over the period) |',
      '| `from` | start of the period; default 30 days before `to` |',
      '| `to` | end of the period, exclusive; default now |',
      '| `group` | only the printers of this group (and their jobs), as in the other reports |',
      '| `format` | `csv` (default) or `json` (an array of objects with the same columns) |',
      '',
      'CSV follows RFC 4180: a header row, CRLF line ends, fields holding a comma, quote or line break in double quotes with',
      'inner quotes doubled, empty for null. A text cell starting with `=`, `+`, `-`, `@`, tab or carriage return gets a',
      'leading `\'` so spreadsheets show it instead of running it as a formula; numbers stay numbers. Rows are ordered by',
      '`created_at` (jobs, printers) or `completed_at` (materials). The `jobs` columns: `id`, `name`, `status`, `priority`,',
      '`printer_id`, `printer_name`, `printer_group`, `file_name`, `created_at`, `started_at`, `completed_at`,',
      '`elapsed_time`, `material_type`, `material_color`, `material_estimated_usage`, `material_used_g`, `filament_cost`,',
      '`estimated_cost` (the whole job, see Cost), `error_code`, `error_message`.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" -o jobs.csv \'http://localhost:8080/v1/analytics/export?dataset=jobs&from=2026-03-01&to=2026-03-31\'',
      '```',
      '',
      '```',
      'id,name,status,priority,printer_id,printer_name,printer_group,file_name,created_at,started_at,completed_at,elapsed_time,material_type,material_color,material_estimated_usage,material_used_g,filament_cost,estimated_cost,error_code,error_message',
      'job_1,bracket,completed,normal,prt_A,Printer A,east,bracket.gcode,2026-03-01T10:00:00.000Z,2026-03-01T10:00:00.000Z,2026-03-01T12:00:00.000Z,7200,PLA,black,118,120,3,7.12,,',
      '```',
      '',
      '**Performance** is measured by `npm run bench:analytics` (100,000 jobs on 50 printers over a year; `-- --jobs',
      '1000000` for a million; it prints the p95 of every report and the export\'s rows per second and memory). Reports',
      'read **roll-ups** (migration 013): per UTC day, per printer and for the whole farm, the sums of the ended jobs by',
      'the day they started (printing seconds, energy at each printer\'s rating now, grams, filament cost), queue waits,',
      'jobs created, final states and completed jobs\' printing (sum, min, max) by the day they ended, failures by code,',
      'and filament by type, colour and spool; per UTC hour, printing seconds and filament cut into the hours a job ran',
      '(as a report cuts a job to its period) and final states. Triggers on the jobs, usage and printer tables keep them',
      'in the same transaction as the write that ends, changes or deletes a job (usage rows written before or after the',
      'end, a printer\'s new rating or group included), on PostgreSQL as on SQLite (the same triggers as PL/pgSQL',
      'functions, keeping the same rows: a test writes one history to both engines and compares every row), so a report',
      'sums the whole days of its period from the roll-ups and reads only its cut edge days (and the few jobs running across its edges, through index ranges) from the jobs.',
      'Time series of hour, day, week or month buckets in a zone whose offset is whole hours sum hour roll-ups; other',
      'zones (e.g. Asia/Kolkata) cut the period\'s jobs as before. The answers are those of the computation from the jobs',
      '(a test compares both on a random history), except that a sum landing exactly half-way between two reported units',
      '(a cent, a second) may round the other way, being added up in another order. The export reads short keyset pages,',
      'never holding a cursor open for a slow client. The target is a p95 of at most 20 ms for every report at 100,000 and',
      'at 1,000,000 jobs; a report takes a few milliseconds (median), so on a busy machine its p95 is set by the stalls.',
    ],
    response: [
      {
        "id": "prt_A",
        "name": "Printer A",
        "group": "east",
        "model": null,
        "power_watts": 200,
        "utilization_rate": 0.1146,
        "jobs_completed": 2,
        "success_rate": 1,
        "total_print_time": 9900,
        "material_consumed": 140,
        "estimated_cost": 9.16
      }
    ],
  },
};
