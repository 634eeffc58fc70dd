// /v1/materials: spools (list, read, add, update incl. load/unload and weigh-in, archive); scopes materials:read/write.
import { errorDocs } from '../http/route-docs.js';
import { listResponseSchema } from '../http/list-query.js';
import type { HttpDeps } from '../http/http-deps.js';
import { routeDefiner } from '../http/route.js';
import type { ListQuery } from '../storage/list-page.js';
import {
  MATERIAL_LIST,
  MaterialCreateBody,
  materialRecordSchema,
  MaterialUpdateBody,
  SPOOL_USAGE_LIST,
  spoolUsageRecordSchema,
  type MaterialCreate,
  type MaterialUpdate,
} from './materials.schemas.js';
import type { MaterialsDeps } from './materials.service.js';
import { archiveMaterial, createMaterial, getMaterial, listMaterials, patchMaterial, spoolUsage, toMaterialRecord } from './materials.service.js';
import { withDocs } from '../http/with-docs.js';
import { materialDocs } from './materials.docs.js';

/** What these routes' handlers use from the program's deps. */
export type MaterialRouteDeps = HttpDeps & MaterialsDeps;
const defineRoute = routeDefiner<MaterialRouteDeps>();

const TAG = 'Materials';
const read = { scope: 'materials:read' };
const write = { scope: 'materials:write' };

export const materialRoutes = withDocs(materialDocs, [
  defineRoute<unknown, ListQuery>({
    method: 'GET',
    path: '/v1/materials',
    summary: 'List materials (spools)',
    tag: TAG,
    auth: read,
    list: MATERIAL_LIST,
    responses: { 200: { description: 'A page of materials', schema: listResponseSchema(materialRecordSchema) }, ...errorDocs(400, 403) },
    async handle(ctx, { query }, deps) {
      ctx.body = await listMaterials(deps.db, query);
    },
  }),
  defineRoute<MaterialCreate>({
    method: 'POST',
    path: '/v1/materials',
    summary: 'Add a material (spool)',
    description: 'Loading it on a printer tool (printer_id, tool) takes the spool that was there off.',
    tag: TAG,
    auth: write,
    body: MaterialCreateBody,
    idempotent: true,
    responses: { 201: { description: 'The created material', schema: materialRecordSchema }, ...errorDocs(400, 403) },
    async handle(ctx, { body }, deps) {
      ctx.status = 201;
      ctx.body = await createMaterial(deps, body);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/materials/:id',
    summary: 'Get a material',
    tag: TAG,
    auth: read,
    responses: { 200: { description: 'The material', schema: materialRecordSchema }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      ctx.body = toMaterialRecord(await getMaterial(deps.db, params.id as string));
    },
  }),
  defineRoute<unknown, ListQuery>({
    method: 'GET',
    path: '/v1/materials/:id/usage',
    summary: 'Usage history of a spool (extension): what each job drew from it',
    description: 'One line per job and tool, newest first (by when the job ended; a job still printing counts from its start and its grams grow).',
    tag: TAG,
    auth: read,
    list: SPOOL_USAGE_LIST,
    responses: { 200: { description: 'A page of usage lines', schema: listResponseSchema(spoolUsageRecordSchema) }, ...errorDocs(400, 403, 404) },
    async handle(ctx, { params, query }, deps) {
      ctx.body = await spoolUsage(deps.db, params.id as string, query);
    },
  }),
  defineRoute<MaterialUpdate>({
    method: 'PATCH',
    path: '/v1/materials/:id',
    summary: 'Update a material: load/unload, weigh-in (measured_gross_weight), archive or restore',
    tag: TAG,
    auth: write,
    body: MaterialUpdateBody,
    responses: { 200: { description: 'The whole updated material', schema: materialRecordSchema }, ...errorDocs(400, 403, 404, 409) },
    async handle(ctx, { params, body }, deps) {
      ctx.body = await patchMaterial(deps, params.id as string, body);
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/materials/:id',
    summary: 'Archive a material (extension): it is unloaded and kept for the history',
    tag: TAG,
    auth: write,
    responses: { 204: { description: 'Archived' }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      await archiveMaterial(deps, params.id as string);
      ctx.status = 204;
    },
  }),
]);
