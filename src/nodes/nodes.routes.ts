// GET /v1/nodes: the appliances sharing this farm's database, each with its state and the printers it drives.
import { errorDocs } from '../http/route-docs.js';
import type { HttpDeps } from '../http/http-deps.js';
import { routeDefiner } from '../http/route.js';
import type { JsonSchema } from '../http/validation.js';
import type { PrintersService } from '../printers/printers.service.js';
import type { Db } from '../storage/db.js';
import type { NodeIdentity } from './node-identity.js';
import { NodeListSchema } from './nodes.schemas.js';
import { listNodeRecords } from './nodes.service.js';
import { withDocs } from '../http/with-docs.js';
import { nodeDocs } from './nodes.docs.js';

/** What these routes' handlers use from the program's deps. */
export type NodeRouteDeps = HttpDeps & { db: Db; node: NodeIdentity; printers: PrintersService };
const defineRoute = routeDefiner<NodeRouteDeps>();

export const nodeRoutes = withDocs(nodeDocs, [
  defineRoute({
    method: 'GET',
    path: '/v1/nodes',
    summary: 'The nodes (appliances) sharing this farm, with their state and printers',
    tag: 'Nodes',
    auth: { scope: 'printers:read' },
    responses: { 200: { description: 'Every registered node, oldest start first', schema: NodeListSchema as unknown as JsonSchema }, ...errorDocs(403) },
    async handle(ctx, _input, deps) {
      ctx.body = { data: await listNodeRecords({ db: deps.db, selfId: deps.node.id, printers: deps.printers }) };
    },
  }),
]);
