// The reference text and examples of the routes in health.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from './with-docs.js';

export const healthDocs: RouteDocs = {
  'GET /healthz': {
    description: [
      'No key. Answers 200 once the database answers, for load balancers and monitoring. No request fields.',
      '',
      '```sh',
      'curl http://localhost:8080/healthz',
      '```',
      '',
      '`storage` says how the disk holding the data directory is doing:',
      '',
      '| Value | Meaning |',
      '|---|---|',
      '| `ok` | free space is above the reserve kept for the database |',
      '| `low` | free space is below the reserve (the organization\'s `storage_reserve_mb`, by default the smaller of 200 MB and 10 % of the file system): uploads and `file_url` downloads are refused with `507 storage_full`, everything else still writes |',
      '| `full` | writes fail for lack of room (or under 1 MB is left): they answer `507 storage_full`, reads keep working, and the state of running prints is held in memory (see A full disk (guide: docs/backups.md)) |',
    ],
    response: {"status":"ok","version":"0.1.0","uptime_s":42,"storage":"ok"},
  },
};
