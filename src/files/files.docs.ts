// The reference text and examples of the routes in files.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

export const fileDocs: RouteDocs = {
  'GET /v1/files': {
    description: [
      'Scope `jobs:read`. Every stored file, the one used last first: uploaded with a job, downloaded from a `file_url`, or',
      'stored by a slicer\'s upload without print. A file pruning removed stays listed with `deleted_at` set and',
      'can no longer be queued (`deleted=false` lists only those that can). Each item is the file record',
      'with two more fields: `jobs_count` (how many jobs were queued from the file, every copy counted, whatever became of',
      'them) and `last_job_at` (when the newest of them was queued; null when none was). Queue one with',
      '`POST /v1/jobs` and `file_id`.',
      '',
      '| Query parameter | Meaning |',
      '|---|---|',
      '| `q` | files whose `original_name` contains this text (ASCII letters in any case; `%` and `_` are plain characters) |',
      '| `format` | `gcode`, `bgcode` or `3mf` |',
      '| `deleted` | `true`: only files pruning removed; `false`: only files still stored |',
      '| `from`, `to` | bounds on `created_at`; a date alone (`2026-11-23`) means that whole UTC day |',
      '| `page` | from 1 (default 1) |',
      '| `per_page` | 1 to 100 (default 20) |',
      '| `sort` | comma-separated, `-` for descending: `last_used_at`, `created_at`, `original_name`, `size` (default `-last_used_at`; ties by id) |',
      '| `fields` | comma-separated fields to return |',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" \'http://localhost:8080/v1/files?q=bracket&deleted=false&fields=id,original_name,estimated_duration,jobs_count,last_job_at\'',
      '```',
    ],
    response: {
      "data": [
        {
          "id": "file_3kR9sQ2mXb7LpV4nT8wA",
          "sha256": "string",
          "size": 0,
          "original_name": "bracket_0.2mm_PLA_1h27m.gcode",
          "line_count": 0,
          "sent_lines_total": 0,
          "sent_bytes_total": 0,
          "slicer": "string",
          "slicer_version": "string",
          "estimated_duration": 5260,
          "filament_used_g": 0,
          "filament_used_mm": 0,
          "filament_weight_source": "slicer",
          "filament_type": "string",
          "extruders": [
            {
              "index": 0,
              "type": "string",
              "used_g": 0,
              "used_mm": 0
            }
          ],
          "nozzle_diameter": 0,
          "layer_height": 0,
          "layer_count": 0,
          "thumbnail": {
            "content_type": "image/png",
            "width": 0,
            "height": 0,
            "size": 0,
            "url": "string"
          },
          "thumbnail_url": "string",
          "format": "gcode",
          "printer_model_id": "string",
          "printer_model": "string",
          "plate_count": 0,
          "plates": [
            {
              "index": 0,
              "gcode": "string",
              "gcode_md5": "string",
              "printer_model_id": "string",
              "nozzle_diameter": 0,
              "estimated_duration": 0,
              "filament_used_g": 0,
              "filaments": [
                {
                  "slot": 0,
                  "type": "string",
                  "color": "string",
                  "used_g": 0,
                  "used_m": 0
                }
              ]
            }
          ],
          "created_at": "2019-08-24T14:15:22Z",
          "last_used_at": "2019-08-24T14:15:22Z",
          "deleted_at": "2019-08-24T14:15:22Z",
          "jobs_count": 3,
          "last_job_at": "2026-11-24T08:15:00.000Z"
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
  'GET /v1/files/:id': {
    description: [
      'Scope `jobs:read`. The record of a stored file:',
      '',
      '| Field | Type | Meaning |',
      '|---|---|---|',
      '| `id` | string | `file_…` |',
      '| `sha256` | string | hex SHA-256 of the content |',
      '| `size` | integer | bytes |',
      '| `original_name` | string | file name of the first upload (or the URL\'s last path segment, or its `Content-Disposition` name) |',
      '| `line_count` | integer | lines in the file |',
      '| `sent_lines_total` | integer | commands sent to the printer (comments and blank lines stripped) |',
      '| `sent_bytes_total` | integer | bytes of those commands, one newline each, before line numbers and checksums |',
      '| `slicer`, `slicer_version` | string or null | e.g. `PrusaSlicer`, `2.7.1+linux-x64-GTK3` |',
      '| `estimated_duration` | number or null | seconds |',
      '| `filament_used_g`, `filament_used_mm` | number or null | all extruders |',
      '| `filament_weight_source` | `slicer`, `computed` or null | where the grams come from |',
      '| `filament_type` | string or null | type of the extruder using the most filament |',
      '| `extruders` | array | `{ index, type, used_g, used_mm }` per extruder or AMS slot that extrudes (0-based index) |',
      '| `nozzle_diameter`, `layer_height` | number or null | millimetres |',
      '| `layer_count` | integer or null | |',
      '| `thumbnail` | object or null | `{ content_type, width, height, size, url }` |',
      '| `thumbnail_url` | string or null | the thumbnail\'s path (`/v1/files/:id/thumbnail`), null when the file has none: ask for the image only when set |',
      '| `format` | string | `gcode` (text, any printer but a Bambu one), `bgcode` (Prusa binary G-code: printed only by PrusaLink printers; line counts 0) or `3mf` (a sliced 3MF: printed only by a Bambu printer of its model; line counts 0) |',
      '| `printer_model_id` | string or null | extension, `3mf`: the Bambu model code the file was sliced for (`C12`); null for other formats or when the slicer wrote none |',
      '| `printer_model` | string or null | extension, `3mf`: that model\'s name (`P1S`); null when the code is not one listed under Files |',
      '| `plate_count` | integer | extension: how many sliced plates a `3mf` holds (a job prints the first); 0 for other formats |',
      '| `plates` | array | extension, `3mf`: per sliced plate `{ index, gcode, gcode_md5, printer_model_id, nozzle_diameter, estimated_duration, filament_used_g, filaments }`, where `gcode` is the plate\'s path in the archive and `filaments` holds `{ slot, type, color, used_g, used_m }` per slicer filament slot (1-based; a Bambu start maps it to an AMS tray); empty for other formats |',
      '| `created_at` | string | when the content was first stored |',
      '| `last_used_at` | string | extension: its last upload or job queued from it with `file_id` (pruning also counts the end of its last job) |',
      '| `deleted_at` | string or null | extension: when pruning removed the content and thumbnail (`thumbnail` and `thumbnail_url` are then null); null while stored |',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" http://localhost:8080/v1/files/file_3kR9sQ2mXb7LpV4nT8wA',
      '```',
      '',
      '`404 resource_not_found` for an unknown id.',
    ],
    response: {
      "id": "file_3kR9sQ2mXb7LpV4nT8wA",
      "sha256": "9f2c4e1b7a0d5c3e8f6a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6",
      "size": 4821337,
      "original_name": "bracket_0.2mm_PLA_1h27m.gcode",
      "line_count": 182044,
      "sent_lines_total": 171230,
      "sent_bytes_total": 3904411,
      "slicer": "Bambu Studio",
      "slicer_version": "01.09.00.70",
      "estimated_duration": 5260,
      "filament_used_g": 12.38,
      "filament_used_mm": 4151.76,
      "filament_weight_source": "slicer",
      "filament_type": "PLA",
      "extruders": [
        {
          "index": 0,
          "type": "PLA",
          "used_g": 12.02,
          "used_mm": 4031.26
        },
        {
          "index": 2,
          "type": "PETG",
          "used_g": 0.36,
          "used_mm": 120.5
        }
      ],
      "nozzle_diameter": 0.4,
      "layer_height": 0.2,
      "layer_count": 120,
      "thumbnail": {
        "content_type": "image/png",
        "width": 300,
        "height": 300,
        "size": 48213,
        "url": "/v1/files/file_3kR9sQ2mXb7LpV4nT8wA/thumbnail"
      },
      "thumbnail_url": "/v1/files/file_3kR9sQ2mXb7LpV4nT8wA/thumbnail",
      "format": "gcode",
      "printer_model_id": null,
      "printer_model": null,
      "plate_count": 0,
      "plates": [],
      "created_at": "2026-11-23T16:40:00.000Z",
      "last_used_at": "2026-11-23T16:40:00.000Z",
      "deleted_at": null
    },
  },
  'GET /v1/files/:id/thumbnail': {
    description: [
      'Scope `jobs:read`. The image bytes with `Content-Type: image/png` or `image/jpeg`, an `ETag`, and',
      '`Cache-Control: private, max-age=31536000, immutable` (a stored file never changes). A request with a matching',
      '`If-None-Match` gets `304` without a body. `404 resource_not_found` when the file is unknown or has no thumbnail;',
      '`410 file_deleted` when pruning removed the file.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" -o thumb.png http://localhost:8080/v1/files/file_3kR9sQ2mXb7LpV4nT8wA/thumbnail',
      '```',
    ],
  },
};
