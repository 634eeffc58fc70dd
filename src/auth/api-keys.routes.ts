// /v1/api-keys and /v1/auth/test: create, list, inspect, revoke and roll keys (admin:*), and verify the calling key.
import { AppError } from '../errors.js';
import { paginationSchema } from '../http/list-query.js';
import type { ListQuery } from '../storage/list-page.js';
import { routeDefiner } from '../http/route.js';
import { toApiKeyRecord } from './api-key-record.js';
import { ApiKeyRecord, ApiKeyWithSecret, CreateKeyBody } from './api-keys.schemas.js';
import { createApiKey, getApiKey, KEY_LIST_SPEC, listKeys, revokeApiKey, rollApiKey } from './api-keys.service.js';
import { requireAuth } from '../http/middleware/auth-context.js';
import { getOrganization } from './organization.service.js';
import { errorDocs } from '../http/route-docs.js';
import { ADMIN_SCOPE } from './scopes.js';
import type { AuthRouteDeps } from './auth-route-deps.js';
import { withDocs } from '../http/with-docs.js';
import { apiKeyDocs } from './api-keys.docs.js';

const defineRoute = routeDefiner<AuthRouteDeps>();

const TAG = 'API keys';
const admin = { scope: ADMIN_SCOPE };

export const apiKeyRoutes = withDocs(apiKeyDocs, [
  defineRoute<CreateKeyBody>({
    method: 'POST',
    path: '/v1/api-keys',
    summary: 'Create an API key (the key value is in this response only)',
    tag: TAG,
    auth: admin,
    body: CreateKeyBody,
    idempotent: true,
    responses: { 201: { description: 'The new key record with its `key`', schema: ApiKeyWithSecret }, ...errorDocs(400, 403) },
    async handle(ctx, { body }, deps) {
      const caller = requireAuth(ctx);
      const { row, key } = await createApiKey(deps, { scopes: caller.scopes, keyId: caller.keyId, userId: caller.userId }, body);
      ctx.status = 201;
      ctx.body = { ...toApiKeyRecord(row, deps.clock.now()), key };
    },
  }),

  defineRoute<unknown, ListQuery>({
    method: 'GET',
    path: '/v1/api-keys',
    summary: 'List the API keys of this server environment',
    tag: TAG,
    auth: admin,
    list: KEY_LIST_SPEC,
    responses: {
      200: {
        description: '`keys` (the key records, never the key values) and `pagination`',
        schema: { type: 'object', properties: { keys: { type: 'array', items: ApiKeyRecord }, pagination: paginationSchema } },
      },
      ...errorDocs(400, 403),
    },
    async handle(ctx, { query }, deps) {
      const page = await listKeys(deps, query, (id) => deps.auth.lastUsedAt(id));
      ctx.body = { keys: page.data, pagination: page.pagination };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/v1/api-keys/current',
    summary: 'The record of the key making this request',
    description:
      'A session made from an API key answers with that key. A session signed in with a password has no key: 404, ' +
      'and GET /v1/sessions/current describes it.',
    tag: TAG,
    auth: 'key',
    responses: { 200: { description: 'The calling key', schema: ApiKeyRecord }, ...errorDocs(404) },
    async handle(ctx, _input, deps) {
      const caller = requireAuth(ctx);
      if (caller.keyId === null) {
        throw new AppError(
          404,
          'resource_not_found',
          'no API key: this request was made with a session signed in with a password, not with an API key',
          'GET /v1/sessions/current describes the session',
        );
      }
      const row = await getApiKey(deps, caller.keyId);
      ctx.body = toApiKeyRecord(row, deps.clock.now(), deps.auth.lastUsedAt(row.id));
    },
  }),

  defineRoute({
    method: 'DELETE',
    path: '/v1/api-keys/:id',
    summary: 'Revoke an API key: refused from the very next request',
    tag: TAG,
    auth: admin,
    responses: {
      200: { description: 'The key record in its new state (`revoked_at` set, `status` revoked)', schema: ApiKeyRecord },
      ...errorDocs(403, 404),
    },
    async handle(ctx, { params }, deps) {
      const row = await revokeApiKey(deps, params.id as string);
      ctx.body = toApiKeyRecord(row, deps.clock.now(), deps.auth.lastUsedAt(row.id));
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/v1/api-keys/:id/roll',
    summary: 'Roll an API key: a new key with the same name and scopes; the old one works 24 more hours',
    tag: TAG,
    auth: admin,
    responses: {
      201: { description: 'The new key record (new id) with its `key`', schema: ApiKeyWithSecret },
      ...errorDocs(403, 404, 409),
    },
    async handle(ctx, { params }, deps) {
      const caller = requireAuth(ctx);
      const { row, key } = await rollApiKey(deps, params.id as string, caller.keyId);
      ctx.status = 201;
      ctx.body = { ...toApiKeyRecord(row, deps.clock.now()), key };
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/v1/auth/test',
    summary: 'Check that a key works',
    tag: TAG,
    auth: 'key',
    responses: {
      200: {
        description: 'The key is valid',
        schema: {
          type: 'object',
          properties: {
            authenticated: { type: 'boolean', enum: [true] },
            key_id: { type: ['string', 'null'], description: 'null for a session signed in with a password' },
            organization: { type: 'string', description: 'organization name' },
            environment: { type: 'string', enum: ['live', 'test', 'dev'] },
            scopes: { type: 'array', items: { type: 'string' } },
          },
        },
      },
      ...errorDocs(),
    },
    async handle(ctx, _input, deps) {
      const caller = requireAuth(ctx);
      const org = await getOrganization(deps.db);
      ctx.body = { authenticated: true, key_id: caller.keyId, organization: org.name, environment: caller.env, scopes: caller.scopes };
    },
  }),
]);
