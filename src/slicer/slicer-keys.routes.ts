// POST /v1/slicer/keys: one click in the dashboard makes a key that may only upload from a slicer, and answers with
// the values to type into each slicer.
import { createApiKey, type KeyServiceDeps } from '../auth/api-keys.service.js';
import { requireAuth } from '../http/middleware/auth-context.js';
import { errorDocs } from '../http/route-docs.js';
import { routeDefiner } from '../http/route.js';
import type { HttpDeps } from '../http/http-deps.js';
import { requestOrigin } from './raw-path.js';
import { slicerSetup } from './slicer-setup.js';
import { SlicerKeyBody, slicerKeyResponseSchema } from './slicer.schemas.js';
import { withDocs } from '../http/with-docs.js';
import { slicerKeyDocs } from './slicer-keys.docs.js';

const defineRoute = routeDefiner<HttpDeps & KeyServiceDeps>();

export const slicerKeyRoutes = withDocs(slicerKeyDocs, [
  defineRoute<SlicerKeyBody>({
    method: 'POST',
    path: '/v1/slicer/keys',
    summary: 'Make a key for slicers (scope slicer:upload) and get what to type into each slicer',
    description:
      'The key is shown once, as with POST /v1/api-keys. `setup` lists, per slicer and host type, the fields to fill in ' +
      '(addresses from the one this request reached); `prefix` is the Digest user name for PrusaLink\'s user/password mode.',
    tag: 'API keys',
    auth: { scope: 'admin:*' },
    body: SlicerKeyBody,
    idempotent: true,
    responses: { 201: { description: 'The key and the slicer settings', schema: slicerKeyResponseSchema }, ...errorDocs(400, 403) },
    async handle(ctx, { body }, deps) {
      const caller = requireAuth(ctx);
      const minter = { scopes: caller.scopes, keyId: caller.keyId, userId: caller.userId };
      const { row, key } = await createApiKey(deps, minter, { name: body.name ?? 'Slicer', scopes: ['slicer:upload'] });
      ctx.status = 201;
      ctx.body = {
        success: true,
        data: {
          id: row.id,
          name: row.name,
          prefix: row.prefix,
          scopes: JSON.parse(row.scopes) as string[],
          key,
          setup: slicerSetup({ origin: requestOrigin(ctx), key, prefix: row.prefix }),
        },
      };
    },
  }),
]);
