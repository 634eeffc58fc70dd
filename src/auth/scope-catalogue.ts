// The concrete scopes a key may hold, each with what it allows: scopes.ts derives its lists from it, the API reference prints it.

export const SCOPE_CATALOGUE = {
  'printers:read': 'Read printers, their live state, temperatures, the USB ports and the nodes; printer events on the stream.',
  'printers:write': 'Add, change and remove printers; send actions (pause, resume, cancel, home, emergency stop...) and console commands.',
  'jobs:read': 'Read jobs, the queue forecast and stored files; job and file events on the stream.',
  'jobs:write': 'Create, change and cancel jobs (upload G-code or give a file URL).',
  'materials:read': 'Read spools and their usage; material events on the stream.',
  'materials:write': 'Add, change, load, weigh and archive spools.',
  'analytics:read': 'Read the fleet, printer, job and material reports and the CSV export.',
  'webhooks:write': 'Create, change, test and remove webhooks; read their deliveries and retry them.',
  'metrics:read': 'Read the Prometheus metrics at GET /metrics.',
  // Upload G-code from a slicer through the emulated OctoPrint, PrusaLink and Moonraker host APIs (src/slicer), nothing else.
  'slicer:upload': 'Upload G-code from a slicer through the OctoPrint, PrusaLink and Moonraker host APIs, and nothing else.',
} as const;

export type ConcreteScope = keyof typeof SCOPE_CATALOGUE;

/** What the wildcards mean, for the reference. */
export const WILDCARD_MEANINGS = {
  'R:*': 'Every scope of resource R (e.g. `printers:*`), including ones added later.',
  'admin:*': 'Everything, including API keys, users, the organization and its settings.',
} as const;
