// The reference text and examples of the routes in invitations.routes.ts, shown by /docs and docs/api.md.
import type { RouteDocs } from '../http/with-docs.js';

export const invitationDocs: RouteDocs = {
  'POST /v1/users/accept-invite': {
    description: [
      'No key: the invite token is the credential. The invited person sets a password and the user becomes `active`.',
      'The token works once and for 7 days after the invite; an unknown, used or expired token is 400 with a message',
      'saying which (`token: this invitation expired at …`) and counts as a failed authentication of the client address',
      '(see Rate limits). The password is stored only as a scrypt hash (N=32768, r=8, p=1, random salt;',
      'the parameters are stored with it).',
      '',
      '| Field | Type | Required | Rules |',
      '|---|---|---|---|',
      '| `token` | string | yes | the `invite_token` from the invite response (`inv_…`) |',
      '| `password` | string | yes | 12 to 256 characters, at least 4 different ones, not only spaces, not the user\'s email address |',
      '',
      '```sh',
      'curl -X POST http://localhost:8080/v1/users/accept-invite -H \'Content-Type: application/json\' \\',
      '  -d \'{"token": "inv_A6bhU6OEjimiAwbCGZz4wI0LXMoZBuHzzTVtdLNN", "password": "correct horse battery"}\'',
      '```',
    ],
    body: {"token":"inv_A6bhU6OEjimiAwbCGZz4wI0LXMoZBuHzzTVtdLNN","password":"correct horse battery"},
    response: {
      "id": "usr_DBkwdSBu5Zjwruv16ZmX",
      "email": "ada@example.com",
      "name": "ada",
      "role": "operator",
      "status": "active",
      "invited_by": "usr_sUR1m80dWyHuZJ9MV98H",
      "created_at": "2026-01-01T00:00:00.000Z",
      "updated_at": "2026-01-03T09:30:00.000Z",
    },
  },
};
