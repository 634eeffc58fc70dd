// The reference text and examples of the routes in prusalink-host.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

export const prusalinkHostDocs: RouteDocs = {
  'GET /api/v1/storage': {
    description: [
      'Scope `slicer:upload`. PrusaLink\'s storage list, `storage_list` first: `/local` (the queue, any printer), then',
      '`/group/<group>` for each group and `/printer/<name>` for each printer; PrusaSlicer shows their names as "Upload to',
      'storage". `free_space` is the room above the database\'s reserve, never 0 (PrusaSlicer would refuse to upload at all;',
      'a full disk is answered on the upload).',
      '',
      '```sh',
      'curl -H "X-Api-Key: $SLICER_KEY" http://localhost:8080/api/v1/storage',
      '```',
    ],
    response: {
      "storage_list": [
        {
          "type": "LOCAL",
          "path": "/local",
          "name": "Farm queue (any printer)",
          "available": true,
          "read_only": false,
          "free_space": 78849896448,
        },
        {
          "type": "LOCAL",
          "path": "/group/bay-1",
          "name": "Group bay-1",
          "available": true,
          "read_only": false,
          "free_space": 78849896448,
        },
      ],
    },
  },
  'PUT /api/v1/files/*path': {
    description: [
      'Scope `slicer:upload`. PrusaLink\'s upload: the body is the G-code, the path `/api/v1/files/<storage>/<folders>/<name>`',
      'with every segment percent-encoded (a `%2F` stays inside its segment). `Print-After-Upload: ?1` queues a job, without',
      'it the file is only stored; `Overwrite` has no effect (files are kept by content). A `Content-Length` over the size',
      'limit is `413` before a byte is read. `201` with `{file_id, job_ids}`.',
      '',
      '```sh',
      'curl -X PUT -T benchy.gcode -H "X-Api-Key: $SLICER_KEY" -H \'Print-After-Upload: ?1\' http://localhost:8080/api/v1/files/local/urgent/benchy.gcode',
      '```',
    ],
  },
};
