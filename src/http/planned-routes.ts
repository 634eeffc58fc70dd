// Every spec endpoint not built yet, as planned RouteDefs: documented in OpenAPI (x-planned), never mounted, so they answer 404/405.
import { listResponseSchema } from './list-query.js';
import {
  materialCreateBody,
  materialRecord,
  materialsListSpec,
  materialUpdateBody,
} from './planned-schemas.js';
import { defineRoute, type RouteDef } from './route.js';

const planned = (route: Omit<RouteDef, 'planned' | 'handle'>): RouteDef => defineRoute({ ...route, planned: true });
const ok = (description: string, schema?: RouteDef['responses'][number]['schema']) => ({ description, ...(schema ? { schema } : {}) });

const materials: RouteDef[] = [
  planned({
    method: 'GET',
    path: '/v1/materials',
    summary: 'List materials',
    tag: 'Materials',
    auth: { scope: 'materials:read' },
    list: materialsListSpec,
    responses: { 200: ok('A page of materials', listResponseSchema(materialRecord)) },
  }),
  planned({
    method: 'GET',
    path: '/v1/materials/:id',
    summary: 'Get a material',
    tag: 'Materials',
    auth: { scope: 'materials:read' },
    responses: { 200: ok('The material', materialRecord) },
  }),
  planned({
    method: 'POST',
    path: '/v1/materials',
    summary: 'Add a material (spool)',
    tag: 'Materials',
    auth: { scope: 'materials:write' },
    body: materialCreateBody,
    idempotent: true,
    responses: { 201: ok('The created material', materialRecord) },
  }),
  planned({
    method: 'PATCH',
    path: '/v1/materials/:id',
    summary: 'Update a material',
    tag: 'Materials',
    auth: { scope: 'materials:write' },
    body: materialUpdateBody,
    responses: { 200: ok('The whole updated material', materialRecord) },
  }),
];

/** Planned endpoints; a feature that builds one removes it here (openapi also lets a built route win over a planned one). */
export const plannedRoutes: RouteDef[] = [...materials];
