// The reference text and examples of the routes in printers.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

const example1 = {
  "id": "prt_4fQ9x2LmN8pR3tV6wY1z",
  "name": "MK4 left",
  "kind": "serial",
  "status": "printing",
  "connecting": false,
  "ready": true,
  "model": "Prusa MK4",
  "firmware": "Prusa-Firmware-Buddy 6.0.2",
  "temperatures": {
    "hotend": 214.8,
    "bed": 60.1,
    "hotend_target": 215,
    "bed_target": 60
  },
  "current_job": "job_Ab12Cd34Ef56Gh78Ij90",
  "progress": 42.5,
  "group": "bay-1",
  "tags": [
    "pla",
    "0.4"
  ],
  "connection_url": "serial:///dev/serial/by-id/usb-Prusa_Research_Original_Prusa_MK4-if00",
  "has_api_key": false,
  "error": null,
  "offline_reason": "unreachable",
  "external_job": {
    "file_name": "string",
    "progress": 0,
    "started_at": "2019-08-24T14:15:22Z"
  },
  "start_refusal": null,
  "material_type": "PLA",
  "material_color": "black",
  "materials": [
    {
      "id": "string",
      "tool": 0,
      "type": "string",
      "color": "string",
      "remaining_weight": 0
    }
  ],
  "nozzle_diameter": 0.4,
  "heatup_watts": 250,
  "power_watts": 120,
  "clear_bed_gcode": null,
  "clear_bed_temperature": null,
  "serial": {
    "connected_since": "2026-01-05T09:13:02.418Z",
    "baud_rate": 115200,
    "lines_sent": 48211,
    "lines_acked": 48207,
    "bytes_written": 1402377,
    "resends": 3,
    "lines_resent": 5,
    "timeouts": 0,
    "errors": 1,
    "spurious_oks": 0
  },
  "node_id": "string",
  "created_at": "2026-01-05T09:12:44.120Z",
  "updated_at": "2026-01-05T09:12:44.120Z"
};

export const printerDocs: RouteDocs = {
  'GET /v1/printers/discover': {
    description: [
      'Extension: the serial ports present now and the network printers that announce themselves on the LAN by multicast',
      'DNS, each with the printer that uses it. Scope `printers:read`.',
      '',
      '| Query parameter | Meaning |',
      '|---|---|',
      '| `mdns_browse_ms` | How long to listen for network printers, in ms: an integer from 200 to 10000 (default 1500). The answer comes after this long. |',
      '',
      '`data` holds the serial ports (USB CDC-ACM `ttyACM*` and USB-serial `ttyUSB*`; pseudo-terminals never appear), sorted',
      'by path. A port counts as used when a printer\'s `connection_url` names it by its device path, by its by-id link, or',
      'by any other link resolving to the same device. Prefer the `by_id` path in `connection_url`: it survives replugging',
      'in another order.',
      '',
      '`network` holds the printers that answered, sorted by `kind` then `name`:',
      '',
      '| Field | Meaning |',
      '|---|---|',
      '| `kind` | `moonraker` (announces `_moonraker._tcp`), `octoprint` (`_octoprint._tcp`) or `prusalink` (`_prusalink._tcp`: Prusa printers on the Buddy firmware, such as MK4, MK3.5, MINI, XL and CORE One, with PrusaLink on; and PrusaLink on a Raspberry Pi) |',
      '| `name` | The announced instance name (control characters removed, at most 100 characters) |',
      '| `host` | The announced host name, e.g. `voron.local` (empty when the announced one is not a valid host name) |',
      '| `port` | The announced port (for Moonraker its HTTP port, even when it also serves HTTPS) |',
      '| `addresses` | The announced IPv4 and IPv6 addresses |',
      '| `connection_url` | What to store as `connection_url` to add this printer. Its host is the address the answer came from (the announced addresses may include networks this server cannot reach, such as a Docker bridge). `moonraker+https://` on Moonraker\'s announced HTTPS port when it announces one, `octoprint+https://` / `prusalink+https://` on port 443, plain otherwise; the port is left out when it is 80 (443 for HTTPS); OctoPrint\'s announced path prefix is kept (`octoprint://host:5000/octoprint`). A self-signed HTTPS certificate needs `?fingerprint=` added. |',
      '| `version` | The software version announced by Moonraker or OctoPrint, or `null` |',
      '| `in_use_by` | The printer whose `connection_url` names this printer\'s host name or one of its addresses with its port (any scheme; without a port, the scheme\'s default: 7125 for `moonraker://`, 7130 for `moonraker+https://`, 80 or 443 for the others), or `null` |',
      '',
      'PrusaLink on a Raspberry Pi also announces itself as OctoPrint, on the same port, for older slicers: it is listed',
      'once, as `prusalink`. Credentials OctoPrint may announce (`u`, `p`) are never returned.',
      '',
      '`mdns` says how the list was made: `enabled` is `false` when the server runs with `--no-mdns` (or',
      '`PRINTFARM_MDNS=0`; `network` is then empty and nothing is sent); `browse_ms` is how long the browse listened and',
      '`browsed_at` when it ended. A browse is reused for 10 s (`cached: true`) so refreshing a page does not browse again,',
      'unless the request asks to listen longer than it did. `error` names why the network could not be browsed (e.g. the',
      'mDNS port could not be opened); the serial ports are listed all the same.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" "http://localhost:8080/v1/printers/discover?mdns_browse_ms=3000"',
      '```',
    ],
    response: {
      "data": [
        {
          "path": "/dev/ttyACM0",
          "by_id": "/dev/serial/by-id/usb-Prusa_Research_Original_Prusa_MK4-if00",
          "manufacturer": "Prusa Research (prusa3d.com)",
          "vendor_id": "2c99",
          "product_id": "001a",
          "serial_number": "CZPX1234",
          "printer_id": "prt_4fQ9x2LmN8pR3tV6wY1z"
        },
        {
          "path": "/dev/ttyUSB0",
          "by_id": null,
          "manufacturer": null,
          "vendor_id": "1a86",
          "product_id": "7523",
          "serial_number": null,
          "printer_id": null
        }
      ],
      "network": [
        {
          "kind": "moonraker",
          "name": "Voron @ voron",
          "host": "voron.local",
          "port": 7125,
          "addresses": [
            "192.168.1.40"
          ],
          "connection_url": "moonraker://192.168.1.40:7125",
          "version": "v0.9.3-12",
          "in_use_by": null
        },
        {
          "kind": "prusalink",
          "name": "prusa-mk4",
          "host": "prusa-mk4.local",
          "port": 80,
          "addresses": [
            "192.168.1.52"
          ],
          "connection_url": "prusalink://192.168.1.52",
          "version": null,
          "in_use_by": "prt_8hT2kWq4Zr7nB1xC5vM9"
        }
      ],
      "mdns": {
        "enabled": true,
        "browse_ms": 1500,
        "browsed_at": "2026-01-05T10:20:01.512Z",
        "cached": false,
        "error": null
      }
    },
  },
  'GET /v1/printers': {
    description: [
      'Lists printers with their live state: `{ "data": [printer, ...], "pagination": { page, per_page, total, total_pages } }`.',
      '',
      '| Query parameter | Meaning |',
      '|---|---|',
      '| `status` | `idle`, `printing`, `offline`, `paused` or `error` (the live status) |',
      '| `group` | exact group name |',
      '| `tag` | printers carrying this tag |',
      '| `model` | exact model |',
      '| `page` | from 1 (default 1) |',
      '| `per_page` | 1 to 100 (default 20) |',
      '| `sort` | comma-separated fields, `-` for descending: `name`, `model`, `group`, `created_at`, `updated_at` (default `-created_at`; ties by id). `status` is live and not sortable. |',
      '| `fields` | comma-separated record fields to return |',
      '',
      'Filters combine (all must hold). An unknown parameter, a bad value, an unknown sort or field is `400 invalid_request`',
      'naming it.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" \'http://localhost:8080/v1/printers?status=idle&group=bay-1&tag=pla&sort=name&fields=id,name,ready\'',
      '```',
    ],
    response: {
      "data": [
        {
          "id": "prt_4fQ9x2LmN8pR3tV6wY1z",
          "name": "MK4 left",
          "kind": "serial",
          "status": "idle",
          "connecting": true,
          "ready": true,
          "model": "string",
          "firmware": "string",
          "temperatures": {
            "hotend": 0,
            "bed": 0,
            "hotend_target": 0,
            "bed_target": 0
          },
          "current_job": "string",
          "progress": 0,
          "group": "string",
          "tags": [
            "string"
          ],
          "connection_url": "string",
          "has_api_key": true,
          "error": {
            "code": "string",
            "message": "string"
          },
          "offline_reason": "unreachable",
          "external_job": {
            "file_name": "string",
            "progress": 0,
            "started_at": "2019-08-24T14:15:22Z"
          },
          "start_refusal": {
            "message": "string",
            "since": "2019-08-24T14:15:22Z",
            "attempts": 0
          },
          "material_type": "string",
          "material_color": "string",
          "materials": [
            {
              "id": "string",
              "tool": 0,
              "type": "string",
              "color": "string",
              "remaining_weight": 0
            }
          ],
          "nozzle_diameter": 0,
          "heatup_watts": 0,
          "power_watts": 0,
          "clear_bed_gcode": "string",
          "clear_bed_temperature": 0,
          "serial": {
            "connected_since": "2019-08-24T14:15:22Z",
            "baud_rate": 1,
            "lines_sent": 0,
            "lines_acked": 0,
            "bytes_written": 0,
            "resends": 0,
            "lines_resent": 0,
            "timeouts": 0,
            "errors": 0,
            "spurious_oks": 0
          },
          "node_id": "string",
          "created_at": "2019-08-24T14:15:22Z",
          "updated_at": "2019-08-24T14:15:22Z"
        }
      ],
      "pagination": {
        "page": 1,
        "per_page": 20,
        "total": 1,
        "total_pages": 1
      },
      "id": "prt_4fQ9x2LmN8pR3tV6wY1z",
      "name": "MK4 left",
      "status": "printing",
      "connecting": false,
      "ready": true,
      "model": "Prusa MK4",
      "firmware": "Prusa-Firmware-Buddy 6.0.2",
      "temperatures": {
        "hotend": 214.8,
        "bed": 60.1,
        "hotend_target": 215,
        "bed_target": 60
      },
      "current_job": "job_Ab12Cd34Ef56Gh78Ij90",
      "progress": 42.5,
      "group": "bay-1",
      "tags": [
        "pla",
        "0.4"
      ],
      "connection_url": "serial:///dev/serial/by-id/usb-Prusa_Research_Original_Prusa_MK4-if00",
      "has_api_key": false,
      "error": null,
      "start_refusal": null,
      "material_type": "PLA",
      "material_color": "black",
      "nozzle_diameter": 0.4,
      "heatup_watts": 250,
      "power_watts": 120,
      "clear_bed_gcode": null,
      "clear_bed_temperature": null,
      "serial": {
        "connected_since": "2026-01-05T09:13:02.418Z",
        "baud_rate": 115200,
        "lines_sent": 48211,
        "lines_acked": 48207,
        "bytes_written": 1402377,
        "resends": 3,
        "lines_resent": 5,
        "timeouts": 0,
        "errors": 1,
        "spurious_oks": 0
      },
      "created_at": "2026-01-05T09:12:44.120Z",
      "updated_at": "2026-01-05T09:12:44.120Z"
    },
  },
  'GET /v1/printers/:id': {
    description: [
      'One printer (the bare record). Unknown id: `404 resource_not_found`.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" http://localhost:8080/v1/printers/prt_4fQ9x2LmN8pR3tV6wY1z',
      '```',
    ],
    response: example1,
  },
  'GET /v1/printers/:id/temperatures': {
    description: [
      'Extension: the printer\'s temperature history for a chart. The server samples every connected printer (`idle`,',
      '`printing`, `paused` or `error`) every 5 s and keeps the last hour (720 samples) in memory: nothing is stored, a',
      'restart starts empty, and deleting the printer drops its history. While a printer is offline no samples are taken,',
      'so a chart shows a gap. Scope `printers:read`; unknown printer `404 resource_not_found`.',
      '',
      '| Query parameter | Meaning |',
      '|---|---|',
      '| `minutes` | how far back: an integer from 1 to 60 (default 60); anything else is `400 invalid_request` naming `minutes` |',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" \'http://localhost:8080/v1/printers/prt_4fQ9x2LmN8pR3tV6wY1z/temperatures?minutes=10\'',
      '```',
      '',
      '`samples` are oldest first; `at` is when the sample was taken (ISO 8601 UTC). Temperatures are °C; a value the',
      'printer did not report is `null` (`hotend_target` and `bed_target` are `null` until a target was set or reported).',
    ],
    response: {
      "printer_id": "prt_4fQ9x2LmN8pR3tV6wY1z",
      "interval_seconds": 5,
      "samples": [
        {
          "at": "2026-01-05T10:20:00.004Z",
          "hotend": 180.4,
          "hotend_target": 215,
          "bed": 58.9,
          "bed_target": 60
        },
        {
          "at": "2026-01-05T10:20:05.001Z",
          "hotend": 191.2,
          "hotend_target": 215,
          "bed": 59.6,
          "bed_target": 60
        }
      ]
    },
  },
  'POST /v1/printers': {
    description: [
      'Adds a printer and opens its session, which connects in the background: the `201` answer usually shows',
      '`status: offline, connecting: true`; the printer turns `idle` within a few seconds once it answered M115. Honours',
      '`Idempotency-Key`.',
      '',
      '| Body field | Type | Rules |',
      '|---|---|---|',
      '| `name` | string | required; 1 to 100 characters after trimming |',
      '| `connection_url` | string | required; up to 2048 characters; see Connection URLs (guide: docs/printers.md); no other printer may use the same link: the same serial device under any path (a by-id link and `/dev/ttyACM0` are one device), the same TCP host and port, or the same `sim://` URL (`409 invalid_request`) |',
      '| `api_key` | string or null | up to 500 characters; credential for the printer\'s own interface, stored encrypted, never returned |',
      '| `model` | string or null | up to 100 characters |',
      '| `group` | string or null | up to 100 characters |',
      '| `tags` | array of string | at most 20, each 1 to 50 characters, no duplicates |',
      '| `material_type` | string or null | up to 50 characters |',
      '| `material_color` | string or null | up to 50 characters |',
      '| `nozzle_diameter` | number or null | 0.1 to 2 (mm) |',
      '| `heatup_watts` | number or null | 0 to 5000 |',
      '| `power_watts` | number or null | 0 to 5000 |',
      '| `clear_bed_gcode` | string or null | up to 10000 characters, one command per line, comments allowed; every line must be one a firmware can take (ASCII, no `*`, fits a line) and at least one command is required |',
      '| `clear_bed_temperature` | number or null | 0 to 150 (°C) |',
      '| `node_id` | string | the node whose connection drives the printer (an `id` of `GET /v1/nodes`); default: the node answering. A node that is not registered is `422 invalid_request` (`node_id: no node … is registered`). That node opens the printer when the signal reaches it. Set only at creation (a `PATCH` refuses it) |',
      '',
      'Every text field is trimmed and refused when blank or when it holds control characters (`clear_bed_gcode` may hold',
      'tabs and line breaks). Unknown fields, wrong types and out-of-range values are `400 invalid_request` with a message',
      'naming the field and the rule, e.g. `name: must be at most 100 characters long`, `unknown field "colour"`,',
      '`connection_url: invalid connection URL "http://x": unknown scheme "http:"`.',
      '',
      '```sh',
      'curl -X POST -H "Authorization: Bearer $KEY" -H \'Content-Type: application/json\' \\',
      '  -H \'Idempotency-Key: add-mk4-left\' http://localhost:8080/v1/printers -d \'{',
      '    "name": "MK4 left",',
      '    "connection_url": "serial:///dev/serial/by-id/usb-Prusa_Research_Original_Prusa_MK4-if00",',
      '    "model": "Prusa MK4",',
      '    "group": "bay-1",',
      '    "tags": ["pla", "0.4"],',
      '    "material_type": "PLA",',
      '    "material_color": "black",',
      '    "nozzle_diameter": 0.4,',
      '    "heatup_watts": 250,',
      '    "power_watts": 120,',
      '    "clear_bed_gcode": "G28 ; home\\nG1 X0 Y210 F3000 ; push the part off",',
      '    "clear_bed_temperature": 30',
      '  }\'',
      '```',
      '',
      'Answer: `201` with the record.',
    ],
    body: {
      "name": "MK4 left",
      "connection_url": "serial:///dev/serial/by-id/usb-Prusa_Research_Original_Prusa_MK4-if00",
      "model": "Prusa MK4",
      "group": "bay-1",
      "tags": [
        "pla",
        "0.4"
      ],
      "material_type": "PLA",
      "material_color": "black",
      "nozzle_diameter": 0.4,
      "heatup_watts": 250,
      "power_watts": 120,
      "clear_bed_gcode": "G28 ; home\nG1 X0 Y210 F3000 ; push the part off",
      "clear_bed_temperature": 30
    },
    response: example1,
  },
  'PATCH /v1/printers/:id': {
    description: [
      'Changes any of the create fields; absent fields stay, `null` clears an optional one (`api_key: null` removes the',
      'stored key). At least one field is required. Read-only or unknown fields (`status`, `firmware`, ...) are',
      '`400 invalid_request` naming the field. Answer: `200` with the whole record.',
      '',
      'A new `connection_url` closes the old link and connects to the new one (the answer shows `connecting: true`); while',
      'a job is printing or paused that is refused with `409 printer_busy`. Other fields may change at any time. Any PATCH',
      'lifts a hold for refused starts (guide: docs/queue.md) (`start_refusal` turns `null`): the printer is offered jobs again.',
      '',
      '| Body field | Type | Rules |',
      '|---|---|---|',
      '| `name` | string | 1 to 100 characters after trimming |',
      '| `connection_url` | string | up to 2048 characters; see Connection URLs (guide: docs/printers.md); no other printer may use the same link: the same serial device under any path (a by-id link and `/dev/ttyACM0` are one device), the same TCP host and port, or the same `sim://` URL (`409 invalid_request`) |',
      '| `api_key` | string or null | up to 500 characters; credential for the printer\'s own interface, stored encrypted, never returned |',
      '| `model` | string or null | up to 100 characters |',
      '| `group` | string or null | up to 100 characters |',
      '| `tags` | array of string | at most 20, each 1 to 50 characters, no duplicates |',
      '| `material_type` | string or null | up to 50 characters |',
      '| `material_color` | string or null | up to 50 characters |',
      '| `nozzle_diameter` | number or null | 0.1 to 2 (mm) |',
      '| `heatup_watts` | number or null | 0 to 5000 |',
      '| `power_watts` | number or null | 0 to 5000 |',
      '| `clear_bed_gcode` | string or null | up to 10000 characters, one command per line, comments allowed; every line must be one a firmware can take (ASCII, no `*`, fits a line) and at least one command is required |',
      '| `clear_bed_temperature` | number or null | 0 to 150 (°C) |',
      '',
      '```sh',
      'curl -X PATCH -H "Authorization: Bearer $KEY" -H \'Content-Type: application/json\' \\',
      '  http://localhost:8080/v1/printers/prt_4fQ9x2LmN8pR3tV6wY1z -d \'{"material_type": "PETG", "material_color": null, "group": "bay-2"}\'',
      '```',
    ],
    body: {
      "material_type": "PETG",
      "material_color": null,
      "group": "bay-2"
    },
    response: example1,
  },
  'DELETE /v1/printers/:id': {
    description: [
      'Closes the session and removes the printer: `204` without a body. While a job is printing or paused:',
      '`409 printer_busy` (cancel the job first).',
      '',
      '```sh',
      'curl -X DELETE -H "Authorization: Bearer $KEY" http://localhost:8080/v1/printers/prt_4fQ9x2LmN8pR3tV6wY1z',
      '```',
    ],
  },
  'POST /v1/printers/:id/actions': {
    description: [
      'Body: `{ "action": "<name>" }`. The answer is `202` with the printer as it stands once the printer accepted the',
      'command: long commands (homing, heating, parking for a pause, the cancel script) go on afterwards, and their',
      'progress shows in the record (`status`, `temperatures`) and in the events.',
      '',
      '| Body field | Type | Rules |',
      '|---|---|---|',
      '| `action` | string | required; one of the actions below |',
      '',
      '| `action` | Does | Allowed when | Otherwise |',
      '|---|---|---|---|',
      '| `pause` | stops feeding the job, lets the queued moves finish, parks the head; `status` turns `paused` when parked; the heater targets stay unless the organization\'s `cool_on_pause` is on (inside a heat-up see below) | `printing` | `invalid_state` |',
      '| `resume` | reheats, returns to the saved position and streams on; a heater measured within the profile\'s window (±3 °C) of its target is only set (`M104`/`M140`), one that cooled is waited for (`M109`/`M190`); the printer and the job are `printing` from the answer on (the reheat is part of the print) | `paused` | `invalid_state` |',
      '| `cancel` | drops what is queued and runs the firmware\'s cancel script; answers with `status: idle`; the job is `cancelled` once the script\'s lines that move filament ran, and the printer finishes the rest (lift, park, `M84`) on its own (inside a heat-up see below) | `printing`, `paused` | `invalid_state` |',
      '| `home` | `G28` | `idle` | `printer_busy` while printing/paused, `invalid_state` in error |',
      '| `cooldown` | heaters and fans off | `idle`, `paused`, `error` | `printer_busy` while printing |',
      '| `ready` (ext.) | the operator cleared the bed: `ready` turns `true` (stored) | not `printing`/`paused` (also offline) | `printer_busy` |',
      '| `emergency_stop` (ext.) | `M112` ahead of everything queued; the job fails; `status: error` until `connect` | connected | — |',
      '| `connect` (ext.) | opens the link now (also clears `error`); no-op when connected; also the retry of a printer held for refused starts (guide: docs/queue.md): it is offered jobs again | always | — |',
      '| `disconnect` (ext.) | closes the link and stops retrying until `connect` (or the next server start) | not `printing`/`paused` | `printer_busy` |',
      '',
      'Every action except `ready`, `connect` and `disconnect` needs a link: without one (offline or connecting) the',
      'answer is `409 printer_offline`.',
      '',
      '**A printer of another node.** When several nodes share one database, only the node a printer belongs to holds its',
      'link. An action, a console command (`POST /v1/printers/{id}/commands`) or a cancel of a job printing there',
      '(`DELETE /v1/jobs/{id}`) sent to any other node is replayed to the owner\'s address with the caller\'s own',
      '`Authorization` header or session cookie (the owner checks them again) and `X-Printfarm-Forwarded-By: <node id>`; the',
      'answer is the owner\'s status, body and `Content-Type`, `Location`, `Retry-After` and `Idempotent-Replayed` headers, plus',
      '`X-Printfarm-Forwarded-To: <owner node id>`. A request that already carries `X-Printfarm-Forwarded-By` is answered',
      'where it lands, never forwarded again. When the owner is lost or stopped, accepts no connection within 3 s, or does',
      'not answer within 10 s (120 s for console commands), the answer is `503 node_unavailable` naming the node.',
      '',
      '**Inside a heat-up or another blocking wait.** A line that blocks the firmware (`M109`, `M190`, `M191`, `G4`, `M400`,',
      'and the firmware profile\'s others, its `blockingWaits`) is a barrier: nothing after it is sent until its `ok`, so',
      'nothing sits queued behind it in the firmware. Where the profile has a break command (`breakWait`: Marlin\'s `M108`,',
      'which its `EMERGENCY_PARSER` reads as the bytes arrive; a board whose M115 says `Cap:EMERGENCY_PARSER:0` has none),',
      '`pause` and `cancel` break the wait at once: `pause` parks and keeps the heater targets, and `resume` runs the broken',
      'wait again before anything moves (a `pause` while it does breaks it again: the head never moved, the job is `paused`',
      'again); `cancel` turns the heaters off and runs the cancel script. Where the firmware cannot break the wait (Klipper,',
      'or `G4`/`M400` on Marlin), the answer is still `202` and the job\'s `pending_action` says `pause` or `cancel`: the job',
      'stays `printing` until the wait ends, and the action takes effect that moment. A pause while moves are queued is the',
      'job\'s `pending_action: pause` too, from the call until the printer ran them and parked (seconds on a real Marlin with',
      'a full planner); on OctoPrint while it shows Pausing or Cancelling, and on Moonraker while Klipper has not run the',
      'action yet. Errors are shape B:',
      '`{ "success": false, "error": { "code", "message", "details" } }`.',
      '',
      '```sh',
      'curl -X POST -H "Authorization: Bearer $KEY" -H \'Content-Type: application/json\' \\',
      '  http://localhost:8080/v1/printers/prt_4fQ9x2LmN8pR3tV6wY1z/actions -d \'{"action": "pause"}\'',
      '```',
    ],
    body: {
      "action": "pause"
    },
    response: {
      "id": "prt_4fQ9x2LmN8pR3tV6wY1z",
      "name": "MK4 left",
      "kind": "serial",
      "status": "printing",
      "connecting": false,
      "ready": true,
      "model": "Prusa MK4",
      "firmware": "Prusa-Firmware-Buddy 6.0.2",
      "temperatures": {
        "hotend": 214.8,
        "bed": 60.1,
        "hotend_target": 215,
        "bed_target": 60
      },
      "current_job": "job_Ab12Cd34Ef56Gh78Ij90",
      "progress": 42.5,
      "group": "bay-1",
      "tags": [
        "pla",
        "0.4"
      ],
      "connection_url": "serial:///dev/serial/by-id/usb-Prusa_Research_Original_Prusa_MK4-if00",
      "has_api_key": false,
      "error": null,
      "offline_reason": "unreachable",
      "external_job": {
        "file_name": "string",
        "progress": 0,
        "started_at": "2019-08-24T14:15:22Z"
      },
      "start_refusal": null,
      "material_type": "PLA",
      "material_color": "black",
      "materials": [
        {
          "id": "string",
          "tool": 0,
          "type": "string",
          "color": "string",
          "remaining_weight": 0
        }
      ],
      "nozzle_diameter": 0.4,
      "heatup_watts": 250,
      "power_watts": 120,
      "clear_bed_gcode": null,
      "clear_bed_temperature": null,
      "serial": {
        "connected_since": "2026-01-05T09:13:02.418Z",
        "baud_rate": 115200,
        "lines_sent": 48211,
        "lines_acked": 48207,
        "bytes_written": 1402377,
        "resends": 3,
        "lines_resent": 5,
        "timeouts": 0,
        "errors": 1,
        "spurious_oks": 0
      },
      "node_id": "string",
      "created_at": "2026-01-05T09:12:44.120Z",
      "updated_at": "2026-01-05T09:12:44.120Z",
      "...": "..."
    },
  },
  'POST /v1/printers/:id/commands': {
    description: [
      'Extension: console access. Body `{ "commands": ["M105", "M114"] }`: 1 to 20 commands of 1 to 256 characters, one',
      'command each (no line breaks or control characters; `;` comments are stripped). They are sent in order, each after',
      'the previous one was answered, and the answer is `200`:',
      '',
      '`ok` is `false` when the firmware answered with an error; `response` holds the lines the printer sent before its',
      '`ok`. A command without an answer within 30 s is reported with `"timed_out": true` (it may still run) and the',
      'commands after it are not sent.',
      '',
      'While a job is `printing` or `paused` only these pass: `M105` (temperatures), `M114` (position), `M115` (firmware),',
      '`M117` (display message), `M119` (endstops), `M220` (feed rate), `M221` (flow), `M27` (SD progress), `M31` (print',
      'time) and `M112` (emergency stop); any other command is `409 printer_busy` naming it, and nothing is sent. Offline:',
      '`409 printer_offline`. A line the firmware cannot take (a `*`, non-ASCII, too long) is `400 invalid_request`.',
      '',
      '| Body field | Type | Rules |',
      '|---|---|---|',
      '| `commands` | array of string | required; 1 to 20 commands, each 1 to 256 characters, one command per entry |',
      '',
      '```sh',
      'curl -X POST -H "Authorization: Bearer $KEY" -H \'Content-Type: application/json\' \\',
      '  http://localhost:8080/v1/printers/prt_4fQ9x2LmN8pR3tV6wY1z/commands -d \'{"commands": ["M220 S90", "M105"]}\'',
      '```',
    ],
    body: {
      "commands": [
        "M220 S90",
        "M105"
      ]
    },
    response: {
      "printer_id": "prt_4fQ9x2LmN8pR3tV6wY1z",
      "results": [
        {
          "command": "M105",
          "ok": true,
          "response": [
            "T:214.80 /215.00 B:60.10 /60.00 @:64 B@:0"
          ]
        },
        {
          "command": "M114",
          "ok": true,
          "response": [
            "X:10.00 Y:10.00 Z:0.20 E:0.00 Count X:800 Y:800 Z:80"
          ]
        }
      ]
    },
  },
};
