// /v1/users: list and read users, invite one (admin:*); the invite token is in the invite response only.
import { Type, type Static } from '@sinclair/typebox';
import { listResponseSchema, type ListSpec } from '../http/list-query.js';
import { StringEnum } from '../http/string-enum.js';
import { NAME_MAX, TextField } from '../http/text-field.js';
import type { ListQuery } from '../storage/list-page.js';
import { routeDefiner } from '../http/route.js';
import { requireAuth } from '../http/middleware/auth-context.js';
import { errorDocs } from '../http/route-docs.js';
import { ADMIN_SCOPE } from './scopes.js';
import { getUser, inviteUser, listUsers, ROLES, toUserRecord, USER_FIELDS } from './users.service.js';
import type { AuthRouteDeps } from './auth-route-deps.js';
import { withDocs } from '../http/with-docs.js';
import { userDocs } from './users.docs.js';

const defineRoute = routeDefiner<AuthRouteDeps>();

const TAG = 'Users';
const admin = { scope: ADMIN_SCOPE };

// The record's TypeScript type is UserRecord (users.service); this schema is what OpenAPI shows for it.
const UserRecordSchema = Type.Object({
  id: Type.String({ description: 'prefix usr_' }),
  email: Type.String({ format: 'email' }),
  name: Type.String(),
  role: StringEnum(ROLES),
  status: StringEnum(['active', 'invited']),
  invited_by: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const USER_LIST: ListSpec = {
  fields: USER_FIELDS,
  sortable: ['created_at', 'email', 'name', 'role'],
  filters: {
    role: { type: 'enum', values: ROLES },
    status: { type: 'enum', values: ['active', 'invited'] },
    email: { type: 'string', description: 'exact email address (case-insensitive)' },
  },
};

const InviteBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    name: Type.Optional(TextField({ minLength: 1, maxLength: NAME_MAX, description: 'defaults to the part of the email before @' })),
    role: StringEnum(ROLES),
  },
  { additionalProperties: false },
);
type InviteBody = Static<typeof InviteBody>;

export const userRoutes = withDocs(userDocs, [
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
        schema: listResponseSchema(UserRecordSchema),
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
    responses: { 200: { description: 'The user', schema: UserRecordSchema }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      // satisfies: the service's UserRecord cannot drift from the schema OpenAPI shows.
      ctx.body = toUserRecord(await getUser(deps.db, params.id as string)) satisfies Static<typeof UserRecordSchema>;
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
    body: InviteBody,
    responses: {
      201: {
        description: 'The invited user (status invited) with `invite_token`, shown once and stored only as a hash',
        schema: Type.Object({ ...UserRecordSchema.properties, invite_token: Type.String() }),
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
]);
