// /v1/organization: read (any valid key) and partially update (admin:*) the organization's settings.
import { badRequest } from '../errors.js';
import { defineRoute } from '../http/route.js';
import { errorDocs } from './route-docs.js';
import {
  ADMIN_HOURLY_FLOOR,
  getOrganization,
  ORGANIZATION_PATH,
  patchOrganization,
  toOrganizationRecord,
  type OrganizationPatch,
} from './organization.service.js';
import { ADMIN_SCOPE } from './scopes.js';

const TAG = 'Organization';

const organizationSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    plan: { type: 'string', enum: ['free', 'pro', 'enterprise'] },
    rate_limit_per_hour: { type: 'integer', description: 'requests per API key per hour in force: 100 free, 1000 pro, own value on enterprise' },
    currency: { type: 'string', description: 'ISO 4217 code' },
    hourly_rate: { type: 'number', description: 'machine cost per print hour, in the currency' },
    energy_cost_per_kwh: { type: 'number', description: 'in the currency' },
    timezone: { type: 'string', description: 'IANA time zone' },
    auto_start: { type: 'boolean', description: 'start queued jobs on free printers without an operator' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

const READ_ONLY = ['id', 'created_at', 'updated_at'] as const;

const patchBody = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    plan: { type: 'string', enum: ['free', 'pro', 'enterprise'] },
    rate_limit_per_hour: { type: 'integer', minimum: 1, maximum: 100_000_000, description: 'enterprise plan only' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, upper case' },
    hourly_rate: { type: 'number', minimum: 0, maximum: 1_000_000 },
    energy_cost_per_kwh: { type: 'number', minimum: 0, maximum: 1_000 },
    timezone: { type: 'string', minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Europe/Berlin' },
    auto_start: { type: 'boolean' },
    // Listed so the 400 can say "read-only" instead of "unknown"; any value is refused by the handler.
    ...Object.fromEntries(READ_ONLY.map((f) => [f, { readOnly: true }])),
  },
};

export const organizationRoutes = [
  defineRoute({
    method: 'GET',
    path: ORGANIZATION_PATH,
    summary: 'The organization and its settings',
    tag: TAG,
    auth: 'key',
    responses: { 200: { description: 'The organization', schema: organizationSchema }, ...errorDocs() },
    async handle(ctx, _input, deps) {
      ctx.body = toOrganizationRecord(await getOrganization(deps.db));
    },
  }),
  defineRoute<OrganizationPatch & Partial<Record<(typeof READ_ONLY)[number], unknown>>>({
    method: 'PATCH',
    path: ORGANIZATION_PATH,
    summary: 'Update organization settings (a plan change applies to rate limits at once)',
    description:
      `A plan or rate_limit_per_hour change applies to every key at once. admin:* keys never get less than ${ADMIN_HOURLY_FLOOR} ` +
      'requests per hour and are never refused GET or PATCH /v1/organization by the rate limit, so a limit set too low can ' +
      'always be undone. A change that lowers the limit answers with `warnings` saying what it does.',
    tag: TAG,
    auth: { scope: ADMIN_SCOPE },
    body: patchBody,
    responses: {
      200: {
        description: 'The whole updated organization; `warnings` (only when there are any) says what the change does to rate limits',
        schema: { ...organizationSchema, properties: { ...organizationSchema.properties, warnings: { type: 'array', items: { type: 'string' } } } },
      },
      ...errorDocs(400, 403),
    },
    async handle(ctx, { body }, deps) {
      const readOnly = READ_ONLY.find((f) => f in body);
      if (readOnly) throw badRequest(`field "${readOnly}" is read-only`);
      const { row, warnings } = await patchOrganization(deps, body as OrganizationPatch);
      ctx.body = { ...toOrganizationRecord(row), ...(warnings.length > 0 ? { warnings } : {}) };
    },
  }),
];
