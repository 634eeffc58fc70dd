// Every route of the API, feature by feature (each feature exports its RouteDef array): mounted by app.ts, documented by OpenAPI.
import type { RouteDef } from '../http/route.js';
import type { AppDeps } from './app-deps.js';
import { apiKeyRoutes } from '../auth/api-keys.routes.js';
import { invitationRoutes } from '../auth/invitations.routes.js';
import { organizationRoutes } from '../auth/organization.routes.js';
import { sessionRoutes } from '../auth/sessions.routes.js';
import { userRoutes } from '../auth/users.routes.js';
import { fileRoutes } from '../files/files.routes.js';
import { jobRoutes } from '../jobs/jobs.routes.js';
import { queueRoutes } from '../scheduler/queue.routes.js';
import { printerRoutes } from '../printers/printers.routes.js';
import { healthRoutes } from '../http/health.routes.js';
import { buildOpenApiDocument } from '../http/openapi.js';
import { openApiRoutes } from '../http/openapi.routes.js';
import { errorCatalogueMarkdown, eventCatalogueMarkdown, scopeCatalogueMarkdown } from './api-catalogues.js';
import { eventRoutes } from '../events/events.routes.js';
import { webhookRoutes } from '../webhooks/webhooks.routes.js';
import { analyticsRoutes } from '../analytics/analytics.routes.js';
import { materialRoutes } from '../materials/materials.routes.js';
import { metricsRoutes } from '../metrics/metrics.routes.js';
import { nodeRoutes } from '../nodes/nodes.routes.js';
import { slicerRoutes } from '../slicer/slicer.routes.js';
import { notificationRoutes } from '../notifications/notifications.routes.js';
import { homeAssistantRoutes } from '../homeassistant/homeassistant.routes.js';
import { cameraRoutes } from '../cameras/cameras.routes.js';
import { jobSnapshotRoutes } from '../cameras/job-snapshots.routes.js';

/** A route of any feature, typed against the one deps object the program builds (the compiler checks each feature's needs). */
export type AppRoute = RouteDef<any, any, AppDeps>;

export function allRoutes(): AppRoute[] {
  return [
    ...healthRoutes,
    ...apiKeyRoutes,
    ...organizationRoutes,
    ...userRoutes,
    ...invitationRoutes,
    ...sessionRoutes,
    ...fileRoutes,
    ...printerRoutes,
    ...nodeRoutes,
    ...jobRoutes,
    ...queueRoutes,
    ...materialRoutes,
    ...webhookRoutes,
    ...notificationRoutes,
    ...eventRoutes,
    ...analyticsRoutes,
    ...metricsRoutes,
    ...slicerRoutes,
    ...homeAssistantRoutes,
    ...cameraRoutes,
    ...jobSnapshotRoutes,
    ...openApiRoutes(allRoutes, apiCatalogueSections),
  ];
}

/** The error, event and scope catalogues, as the API reference's introduction prints them. */
export const apiCatalogueSections = (): string[] => [errorCatalogueMarkdown(), eventCatalogueMarkdown(), scopeCatalogueMarkdown()];

/** The OpenAPI document of every route with its catalogues: what GET /v1/openapi.json, /docs and docs/api.md show. */
export const apiDocument = (): Record<string, unknown> => buildOpenApiDocument(allRoutes(), apiCatalogueSections());
