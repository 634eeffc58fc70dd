// /v1/organization: read (any valid key) and partially update (admin:*) the organization's settings.
import { badRequest } from '../errors.js';
import { defineRoute } from '../http/route.js';
import { errorDocs } from './route-docs.js';
import { getOrganization, patchOrganization, toOrganizationRecord, type OrganizationPatch } from './organization.service.js';
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
    webhook_allowed_hosts: { type: 'array', items: { type: 'string' }, description: 'hosts webhook receivers may use; empty allows any' },
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
    webhook_allowed_hosts: {
      type: 'array',
      maxItems: 100,
      uniqueItems: true,
      items: { type: 'string', minLength: 1, maxLength: 253 },
      description: 'host names, *.domain wildcards, IPv4 addresses or ranges (10.0.0.0/8) or [IPv6] webhook receivers may use; [] allows any',
    },
    // Listed so the 400 can say "read-only" instead of "unknown"; any value is refused by the handler.
    ...Object.fromEntries(READ_ONLY.map((f) => [f, { readOnly: true }])),
  },
};

export const organizationRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/organization',
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
    path: '/v1/organization',
    summary: 'Update organization settings (a plan change applies to rate limits at once)',
    tag: TAG,
    auth: { scope: ADMIN_SCOPE },
    body: patchBody,
    responses: { 200: { description: 'The whole updated organization', schema: organizationSchema }, ...errorDocs(400, 403) },
    async handle(ctx, { body }, deps) {
      const readOnly = READ_ONLY.find((f) => f in body);
      if (readOnly) throw badRequest(`field "${readOnly}" is read-only`);
      ctx.body = toOrganizationRecord(await patchOrganization(deps, body as OrganizationPatch));
    },
  }),
];
