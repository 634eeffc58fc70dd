// The reference text and examples of the routes in slicer-keys.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

export const slicerKeyDocs: RouteDocs = {
  'POST /v1/slicer/keys': {
    description: [
      'Scope `admin:*`; honours `Idempotency-Key`. Makes a key with only `slicer:upload` and answers with what to type into',
      'each slicer (`setup`, built from the address this request reached), the key shown once. The dashboard\'s **Connect a',
      'slicer** button calls it.',
      '',
      '| Field | Type | Required | Rules |',
      '|---|---|---|---|',
      '| `name` | string | no | 1 to 100 characters; default `Slicer` |',
      '',
      '```sh',
      'curl -X POST http://localhost:8080/v1/slicer/keys -H "Authorization: Bearer $KEY" -H \'Content-Type: application/json\' -d \'{}\'',
      '```',
    ],
    body: {},
    response: {
      "success": true,
      "data": {
        "id": "key_fB5BxLG25nGOnStfaAVW",
        "name": "Slicer",
        "prefix": "svc_live_TJrc6I",
        "scopes": ["slicer:upload"],
        "key": "svc_live_TJrc6IZojLAHDOGZxUVzbPXGuPr3eVcrsLbEBQvg",
        "setup": [
          {
            "slicer": "PrusaSlicer 2.6+ / OrcaSlicer",
            "host_type": "PrusaLink",
            "fields": [
              {"label":"Host Type","value":"PrusaLink"},
              {"label":"Hostname, IP or URL","value":"http://localhost:8080"},
            ],
            "note": "…",
          },
        ],
      },
    },
  },
};
