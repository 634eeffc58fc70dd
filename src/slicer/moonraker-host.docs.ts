// The reference text and examples of the routes in moonraker-host.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

export const moonrakerHostDocs: RouteDocs = {
  'GET /server/info': {
    description: [
      'Scope `slicer:upload`. Moonraker\'s server info, `result` first, `klippy_state: "ready"`.',
      '',
      '```sh',
      'curl -H "X-Api-Key: $SLICER_KEY" http://localhost:8080/server/info',
      '```',
    ],
  },
  'GET /server/files/roots': {
    description: [
      'Scope `slicer:upload`. The roots an upload may name: `gcodes` (the queue), `group/<group>`, `printer/<name>`; OrcaSlicer',
      'offers them as its storage list (it drops typed folders for Moonraker, so this is how it picks a group).',
      '',
      '```sh',
      'curl -H "X-Api-Key: $SLICER_KEY" http://localhost:8080/server/files/roots',
      '```',
    ],
  },
  'POST /server/files/upload': {
    description: [
      'Scope `slicer:upload`. Moonraker\'s multipart upload: `file`, `root` (`gcodes` or a root above), `path` (folders),',
      '`print` (`true` queues a job), in any order. `201` with Moonraker\'s own keys (`item`, `print_started`, `print_queued`,',
      '`action`) and the same again under `result`, which OrcaSlicer reads.',
      '',
      '```sh',
      'curl -X POST -H "X-Api-Key: $SLICER_KEY" -F file=@benchy.gcode -F root=group/bay-1 -F print=true http://localhost:8080/server/files/upload',
      '```',
    ],
  },
  'POST /printer/print/start': {
    description: [
      'Scope `slicer:upload`. Answers `{"result": "ok"}` and does nothing: the upload with `print=true` already queued the job',
      '(OrcaSlicer calls it only when an upload answer lacks `print_started`).',
      '',
      '```sh',
      'curl -X POST -H "X-Api-Key: $SLICER_KEY" -H \'Content-Type: application/json\' -d \'{"filename": "benchy.gcode"}\' http://localhost:8080/printer/print/start',
      '```',
    ],
    body: {"filename":"benchy.gcode"},
  },
};
