// The reference text and examples of the routes in octoprint-host.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

export const octoprintHostDocs: RouteDocs = {
  'GET /api/version': {
    description: [
      'Scope `slicer:upload`. `text` starts with `OctoPrint`, which PrusaSlicer and OrcaSlicer accept for both their',
      'OctoPrint and PrusaLink host types; `capabilities.upload-by-put` makes PrusaSlicer 2.6+ upload with `PUT`.',
      '',
      '```sh',
      'curl -H "X-Api-Key: $SLICER_KEY" http://localhost:8080/api/version',
      '```',
    ],
    response: {
      "api": "0.1",
      "server": "1.9.3",
      "text": "OctoPrint 1.9.3 (printfarm 0.1.0: uploads go to the farm's queue)",
      "original": "printfarm 0.1.0",
      "capabilities": {"upload-by-put":true},
    },
  },
  'GET /api/settings': {
    description: [
      'Scope `slicer:upload`. What Cura\'s OctoPrint plugin checks a key with: no plugins, no SD card, no webcam.',
      '',
      '```sh',
      'curl -H "X-Api-Key: $SLICER_KEY" http://localhost:8080/api/settings',
      '```',
    ],
  },
  'POST /api/login': {
    description: [
      'Scope `slicer:upload`. Cura\'s passive login: the key\'s name as the user.',
      '',
      '```sh',
      'curl -X POST -H "X-Api-Key: $SLICER_KEY" http://localhost:8080/api/login',
      '```',
    ],
  },
  'GET /api/printer': {
    description: [
      'Scope `slicer:upload`. Always `Operational` with every flag idle (the queue decides when a printer is free, so Cura',
      'never refuses to send); temperatures read 0, since no one printer stands behind the farm.',
      '',
      '```sh',
      'curl -H "X-Api-Key: $SLICER_KEY" http://localhost:8080/api/printer',
      '```',
    ],
  },
  'GET /api/job': {
    description: [
      'Scope `slicer:upload`. No current job, with every field Cura reads present and null.',
      '',
      '```sh',
      'curl -H "X-Api-Key: $SLICER_KEY" http://localhost:8080/api/job',
      '```',
    ],
  },
  'GET /api/printerprofiles': {
    description: [
      'Scope `slicer:upload`. One profile, `_default`, current.',
      '',
      '```sh',
      'curl -H "X-Api-Key: $SLICER_KEY" http://localhost:8080/api/printerprofiles',
      '```',
    ],
  },
  'POST /api/files/*storage': {
    description: [
      'Scope `slicer:upload`. **Multipart** (OctoPrint\'s upload, also PrusaSlicer 2.5\'s PrusaLink): fields `file` (the',
      'G-code), `path` (folders), `print` (`true` queues a job; otherwise the file is only stored), `select` (accepted,',
      'ignored), in any order — the folders are checked once the whole form is read, before the file is kept. The storage is',
      '`local` or one of `GET /api/v1/storage` (`/api/files/group/bay-1`). `201` with `Location:',
      '…/api/files/local/<file id>/<folders>/<name>` and OctoPrint\'s `{done, files: {local: {name, origin, path, refs}}}` plus',
      '`printfarm: {file_id, job_ids}`. **JSON** on a `Location` (Cura\'s command after an upload; the second example queues',
      'a file an upload without print stored):',
      '',
      '| Field | Type | Required | Rules |',
      '|---|---|---|---|',
      '| `command` | string | yes | `select`; anything else is `400` |',
      '| `print` | boolean | no | `true` queues the stored file with the folders of its `Location`; `204` either way |',
      '',
      '```sh',
      'curl -X POST -H "X-Api-Key: $SLICER_KEY" -F print=true -F path=group/bay-1/x2 -F file=@benchy.gcode http://localhost:8080/api/files/local',
      'curl -X POST -H "X-Api-Key: $SLICER_KEY" -H \'Content-Type: application/json\' -d \'{"command": "select", "print": true}\' \\',
      '  http://localhost:8080/api/files/local/file_tUq68tEf2gMBlsSiRgZk/benchy.gcode',
      '```',
    ],
    body: {"command":"select","print":true},
  },
};
