// The reference text and examples of the routes in queue.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

export const queueDocs: RouteDocs = {
  'GET /v1/queue/forecast': {
    description: [
      'Extension, scope `jobs:read`: the farm\'s timeline from estimated durations — which queued job starts on which',
      'printer and when, after the print running there (its `estimated_remaining`). A job without an estimate counts one',
      'hour (`uses_default_duration: true`). Jobs no online printer can take are listed in `unplaced` with the reason and',
      'its words (a printer held for refused starts (guide: docs/queue.md) takes nothing here either: `printer_refused`). The forecast does not model the power budget, spools running down or prints failing.',
      'On a farm of several boxes (guide: docs/many-boxes.md) it covers every box\'s printers and queued jobs (pinned ones too), each',
      'printer as its box last published it, so every box answers with the same plan.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" http://localhost:8080/v1/queue/forecast',
      '```',
    ],
    response: {
      "generated_at": "2026-11-23T09:00:00.000Z",
      "entries": [
        {
          "job_id": "job_7Hq2LmN8pR3tV6wY1zAb",
          "job_name": "bracket",
          "printer_id": "prt_4fQ9x2LmN8pR3tV6wY1z",
          "start_at": "2026-11-23T09:42:10.000Z",
          "end_at": "2026-11-23T10:54:10.000Z",
          "uses_default_duration": false,
        },
      ],
      "unplaced": [
        {
          "job_id": "job_Zt9rLw2KpXa4B7cDeQm3",
          "job_name": "gear",
          "reason": "no_printer_with_material",
          "reason_text": "No printer the job may use has its material (type, and color when the job names one) loaded. Load it on a printer.",
        },
      ],
    },
  },
};
