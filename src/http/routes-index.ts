// Every route of the API, feature by feature (each feature exports its RouteDef array): mounted by app.ts, documented by OpenAPI.
import type { RouteDef } from './route.js';
import { healthRoutes } from './health.routes.js';

export function allRoutes(): RouteDef<any, any>[] {
  return [...healthRoutes];
}
