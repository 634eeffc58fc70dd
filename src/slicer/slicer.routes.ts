// Every route of the slicer feature: the key maker on /v1 and the three emulated host APIs.
import { moonrakerHostRoutes } from './moonraker-host.routes.js';
import { octoprintHostRoutes } from './octoprint-host.routes.js';
import { prusalinkHostRoutes } from './prusalink-host.routes.js';
import { slicerKeyRoutes } from './slicer-keys.routes.js';

export const slicerRoutes = [...slicerKeyRoutes, ...octoprintHostRoutes, ...prusalinkHostRoutes, ...moonrakerHostRoutes];
