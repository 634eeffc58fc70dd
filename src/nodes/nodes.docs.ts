// The reference text and examples of the routes in nodes.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

export const nodeDocs: RouteDocs = {
  'GET /v1/nodes': {
    description: [
      'Extension, scope `printers:read`: the nodes (appliances) that share this farm\'s database, oldest start first. Each',
      'node registers itself when it starts and beats every 5 s; a printer belongs to one node (`node_id` on the printer),',
      'and only that node opens its connection and schedules jobs on it. On SQLite the farm is one node.',
      '',
      '| Field | Type | Meaning |',
      '|---|---|---|',
      '| `id` | string | `nod_…`, kept in the data directory (`node-id`), so a restarted node is the same node and takes its printers back |',
      '| `name` | string | `--node-name` |',
      '| `address` | string or null | `--node-address`: where the other nodes reach it |',
      '| `version` | string | the printfarm version it runs |',
      '| `started_at` | string | when it last started |',
      '| `last_seen_at` | string | its own clock at its last heartbeat |',
      '| `state` | string | `online`; `lost`: another node saw no heartbeat for 30 s (on its own clock); `stopped`: shut down cleanly |',
      '| `lost_since` | string or null | when the other nodes marked it `lost`; `null` in any other state |',
      '| `self` | boolean | `true` for the node answering |',
      '| `printers` | array | `{id, name, status, job}` of the printers it drives; `status` is the live status as `GET /v1/printers` shows it on any node (another node\'s printers from the state that node publishes, `offline` once it is lost or stopped); `job` is what it prints now, `{id, name, progress}` (`id` null for a print started on the printer itself, `name` then its file name), or `null` (nothing, or its node is lost or stopped) |',
      '',
      'When a node is lost, one of the others (the one whose conditional update marks it lost) fails the jobs printing or',
      'paused on its printers with error `node_lost` (with the usual `job.failed` event and webhooks), and queued jobs pinned',
      'to its printers wait with reason `node_lost`. A network printer (Moonraker, OctoPrint, PrusaLink) prints its own copy',
      'of the file, so instead it moves to that node, which follows its running job as a restart would. When the lost node',
      'beats again it is `online`, opens its remaining printers and the `node_lost` waits clear.',
      '',
      '```sh',
      'curl -H "Authorization: Bearer $KEY" http://localhost:8080/v1/nodes',
      '```',
    ],
    response: {
      "data": [
        {
          "id": "nod_4Tz8KqW1mR6nB2vX9cLp",
          "name": "bay-1",
          "address": "http://192.168.1.20:8080",
          "version": "1.0.0",
          "started_at": "2026-03-02T08:00:00.000Z",
          "last_seen_at": "2026-03-02T09:14:05.000Z",
          "state": "online",
          "lost_since": null,
          "self": true,
          "printers": [
            {
              "id": "prt_2Fh7LmQ9xR4tV8wZ1bCd",
              "name": "MK4 left",
              "status": "printing",
              "job": {"id":"job_7Hq2LmN8pR3tV6wY1zAb","name":"bracket","progress":42.5},
            },
          ],
        },
      ],
    },
  },
};
