// POST /v1/users/accept-invite: public (the invite token is the credential); bad tokens count as failed authentications.
import { routeDefiner } from '../http/route.js';
import { AcceptInviteBody } from './invitations.schemas.js';
import { acceptInvite } from './invitations.service.js';
import { errorDocs } from '../http/route-docs.js';
import { toUserRecord } from './users.service.js';
import type { AuthRouteDeps } from './auth-route-deps.js';
import { withDocs } from '../http/with-docs.js';
import { invitationDocs } from './invitations.docs.js';

const defineRoute = routeDefiner<AuthRouteDeps>();

export const invitationRoutes = withDocs(invitationDocs, [
  defineRoute<AcceptInviteBody>({
    method: 'POST',
    path: '/v1/users/accept-invite',
    summary: 'Accept an invitation: set a password and become an active user',
    description:
      'Needs no API key: the invite token is the credential. It works once, for 7 days after the invite. An unknown, used ' +
      'or expired token is 400 and counts as a failed authentication of the client address (20 per 15 minutes, then 429).',
    tag: 'Users',
    auth: 'none',
    body: AcceptInviteBody,
    responses: {
      200: {
        description: 'The user, now with status active',
        schema: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            email: { type: 'string' },
            name: { type: 'string' },
            role: { type: 'string' },
            status: { type: 'string', enum: ['active'] },
          },
        },
      },
      ...errorDocs(400),
    },
    async handle(ctx, { body }, deps) {
      // A bad token (InviteTokenError) counts as a failed authentication of the client address (failed-auth guard).
      ctx.body = toUserRecord(await acceptInvite(deps, body));
    },
  }),
]);
