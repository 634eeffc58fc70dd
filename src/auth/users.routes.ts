// /v1/users: list and read users, invite one (admin:*); the invite token is in the invite response only.
import { listResponseSchema, type ListSpec } from '../http/list-query.js';
import type { ListQuery } from '../storage/list-page.js';
import { defineRoute } from '../http/route.js';
import { requireAuth } from '../http/middleware/auth-context.js';
import { errorDocs } from './route-docs.js';
import { ADMIN_SCOPE } from './scopes.js';
import { getUser, inviteUser, listUsers, ROLES, toUserRecord, USER_FIELDS, type Role } from './users.service.js';

const TAG = 'Users';
const admin = { scope: ADMIN_SCOPE };

const userSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'prefix usr_' },
    email: { type: 'string', format: 'email' },
    name: { type: 'string' },
    role: { type: 'string', enum: [...ROLES] },
    status: { type: 'string', enum: ['active', 'invited'] },
    invited_by: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

const USER_LIST: ListSpec = {
  fields: USER_FIELDS,
  sortable: ['created_at', 'email', 'name', 'role'],
  filters: {
    role: { type: 'enum', values: ROLES },
    status: { type: 'enum', values: ['active', 'invited'] },
    email: { type: 'string', description: 'exact email address (case-insensitive)' },
  },
};

interface InviteBody {
  email: string;
  name?: string;
  role: Role;
}

export const userRoutes = [
  defineRoute<unknown, ListQuery>({
    method: 'GET',
    path: '/v1/users',
    summary: 'List users',
    tag: TAG,
    auth: admin,
    list: USER_LIST,
    responses: {
      200: {
        description: '`data` (users) and `pagination`',
        schema: listResponseSchema(userSchema),
      },
      ...errorDocs(400, 403),
    },
    async handle(ctx, { query }, deps) {
      ctx.body = await listUsers(deps.db, query);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/users/:id',
    summary: 'One user',
    tag: TAG,
    auth: admin,
    responses: { 200: { description: 'The user', schema: userSchema }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      ctx.body = toUserRecord(await getUser(deps.db, params.id as string));
    },
  }),
  defineRoute<InviteBody>({
    method: 'POST',
    path: '/v1/users/invite',
    summary: 'Invite a user (the invite token is in this response only)',
    description: 'An email address already in use answers 409 invalid_request.',
    tag: TAG,
    auth: admin,
    idempotent: true,
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['email', 'role'],
      properties: {
        email: { type: 'string', format: 'email', maxLength: 254 },
        name: { type: 'string', minLength: 1, maxLength: 100, description: 'defaults to the part of the email before @' },
        role: { type: 'string', enum: [...ROLES] },
      },
    },
    responses: {
      201: {
        description: 'The invited user (status invited) with `invite_token`, shown once and stored only as a hash',
        schema: { ...userSchema, properties: { ...userSchema.properties, invite_token: { type: 'string' } } },
      },
      ...errorDocs(400, 403, 409),
    },
    async handle(ctx, { body }, deps) {
      const caller = requireAuth(ctx);
      const name = body.name ?? body.email.slice(0, body.email.indexOf('@'));
      const { row, inviteToken } = await inviteUser(deps, caller.userId, { email: body.email, name, role: body.role });
      ctx.status = 201;
      ctx.body = { ...toUserRecord(row), invite_token: inviteToken };
    },
  }),
];
