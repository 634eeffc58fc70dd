// /v1/organization: read (any valid key) and partially update (admin:*) the organization's settings.
import { badRequest } from '../errors.js';
import { routeDefiner } from '../http/route.js';
import { errorDocs } from '../http/route-docs.js';
import {
  ADMIN_HOURLY_FLOOR,
  getOrganization,
  ORGANIZATION_PATH,
  patchOrganization,
  toOrganizationRecord,
} from './organization.service.js';
import { OrganizationPatchBody, OrganizationRecord, PatchedOrganization, READ_ONLY_FIELDS } from './organization.schemas.js';
import { ADMIN_SCOPE } from './scopes.js';
import type { AuthRouteDeps } from './auth-route-deps.js';
import { withDocs } from '../http/with-docs.js';
import { organizationDocs } from './organization.docs.js';

const defineRoute = routeDefiner<AuthRouteDeps>();

const TAG = 'Organization';

export const organizationRoutes = withDocs(organizationDocs, [
  defineRoute({
    method: 'GET',
    path: ORGANIZATION_PATH,
    summary: 'The organization and its settings',
    tag: TAG,
    auth: 'key',
    responses: { 200: { description: 'The organization', schema: OrganizationRecord }, ...errorDocs() },
    async handle(ctx, _input, deps) {
      ctx.body = toOrganizationRecord(await getOrganization(deps.db));
    },
  }),
  defineRoute<OrganizationPatchBody>({
    method: 'PATCH',
    path: ORGANIZATION_PATH,
    summary: 'Update organization settings (a plan change applies to rate limits at once)',
    description:
      `A plan or rate_limit_per_hour change applies to every key at once. admin:* keys never get less than ${ADMIN_HOURLY_FLOOR} ` +
      'requests per hour and are never refused GET or PATCH /v1/organization by the rate limit, so a limit set too low can ' +
      'always be undone. A change that lowers the limit answers with `warnings` saying what it does.',
    tag: TAG,
    auth: { scope: ADMIN_SCOPE },
    body: OrganizationPatchBody,
    responses: {
      200: {
        description: 'The whole updated organization; `warnings` (only when there are any) says what the change does to rate limits',
        schema: PatchedOrganization,
      },
      ...errorDocs(400, 403),
    },
    async handle(ctx, { body }, deps) {
      const readOnly = READ_ONLY_FIELDS.find((f) => f in body);
      if (readOnly) throw badRequest(`field "${readOnly}" is read-only`);
      const { row, warnings } = await patchOrganization(deps, body);
      ctx.body = { ...toOrganizationRecord(row), ...(warnings.length > 0 ? { warnings } : {}) };
    },
  }),
]);
