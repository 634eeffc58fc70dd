// /v1/printers: CRUD on stored printers with their live session state, control actions, console commands, discovery.
import { errorDocs } from '../http/route-docs.js';
import { listResponseSchema } from '../http/list-query.js';
import type { ListQuery } from '../storage/list-page.js';
import type { HttpDeps } from '../http/http-deps.js';
import { routeDefiner } from '../http/route.js';
import type { JsonSchema } from '../http/validation.js';
import { runPrinterAction } from './printer-actions.js';
import { runPrinterCommands, SAFE_WHILE_PRINTING } from './printer-commands.js';
import { discoverPrinters } from './printer-discovery.js';
import { listVideoDevices } from '../cameras/video-devices.js';
import { MDNS_CACHE_MS } from './network-discovery.js';
import { NETWORK_KINDS } from './network-printers.js';
import { PrinterRecordSchema } from './printer-record.js';
import {
  DiscoverQuery,
  parseBrowseMs,
  PrinterActionBody,
  PrinterCommandsBody,
  PrinterCreateBody,
  PrinterUpdateBody,
  TemperatureHistoryRecord,
  TemperaturesQuery,
  type DiscoverQueryInput,
  type PrinterActionInput,
  type PrinterCommandsInput,
  type PrinterCreateInput,
  type PrinterUpdateInput,
  type TemperaturesQueryInput,
} from './printers.schemas.js';
import { PRINTER_LIST_SPEC } from './printers.service.js';
import { temperatureHistory } from './printer-temperatures.js';
import type { PrintersService } from './printers.service.js';
import type { TemperatureHistory } from './temperature-history.js';
import { withDocs } from '../http/with-docs.js';
import { printerDocs } from './printers.docs.js';

/** What these routes' handlers use from the program's deps. */
export type PrinterRouteDeps = HttpDeps & { printers: PrintersService; temperatures: TemperatureHistory };
const defineRoute = routeDefiner<PrinterRouteDeps>();

const TAG = 'Printers';
const read = { scope: 'printers:read' };
const write = { scope: 'printers:write' };
const record = PrinterRecordSchema as unknown as JsonSchema;
const nullableString: JsonSchema = { type: ['string', 'null'] };

const discoverResponse: JsonSchema = {
  type: 'object',
  properties: {
    data: {
      type: 'array',
      description: 'Serial ports, sorted by path',
      items: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Device node, e.g. /dev/ttyACM0' },
          by_id: { ...nullableString, description: 'Stable /dev/serial/by-id/ link (survives replugging)' },
          manufacturer: nullableString,
          vendor_id: { ...nullableString, description: 'USB vendor id, 4 hex digits' },
          product_id: { ...nullableString, description: 'USB product id, 4 hex digits' },
          serial_number: nullableString,
          printer_id: { ...nullableString, description: 'The printer using this port, or null' },
        },
      },
    },
    network: {
      type: 'array',
      description: 'Network printers announced by mDNS, sorted by kind then name (empty when mDNS is off)',
      items: {
        type: 'object',
        properties: {
          kind: { type: 'string', enum: [...NETWORK_KINDS] },
          name: { type: 'string', description: 'The announced instance name' },
          host: { type: 'string', description: 'The announced host name, e.g. voron.local' },
          port: { type: 'integer', description: 'The announced port' },
          addresses: { type: 'array', items: { type: 'string' }, description: 'The announced IPv4 and IPv6 addresses' },
          connection_url: { type: 'string', description: 'What to store as connection_url to add this printer' },
          version: { ...nullableString, description: 'Software version from the announcement (Moonraker, OctoPrint)' },
          in_use_by: { ...nullableString, description: 'The printer whose connection_url names this host and port, or null' },
        },
      },
    },
    video: {
      type: 'object',
      description: "The appliance's own cameras (/dev/video* capture nodes) and the program that can serve them as MJPEG",
      properties: {
        capture_program: { type: ['string', 'null'], enum: ['ustreamer', 'ffmpeg', null], description: 'ustreamer or ffmpeg when installed (the .deb recommends ustreamer); null: none, USB cameras cannot be served' },
        devices: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              path: { type: 'string', description: 'e.g. /dev/video0' },
              by_id: { ...nullableString, description: 'Stable /dev/v4l/by-id link' },
              name: { ...nullableString, description: "The driver's name for the camera" },
            },
          },
        },
      },
    },
    mdns: {
      type: 'object',
      description: 'How the network list was made',
      properties: {
        enabled: { type: 'boolean', description: 'false when the server runs with --no-mdns' },
        browse_ms: { type: ['integer', 'null'], description: 'How long the browse listened' },
        browsed_at: { ...nullableString, description: 'When that browse ended' },
        cached: { type: 'boolean', description: `true when an earlier browse (at most ${MDNS_CACHE_MS / 1000} s old) was reused` },
        error: { ...nullableString, description: 'Why the network could not be browsed, or null' },
      },
    },
  },
};

const commandsResponse: JsonSchema = {
  type: 'object',
  properties: {
    printer_id: { type: 'string' },
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          command: { type: 'string' },
          ok: { type: 'boolean', description: 'false when the firmware answered with an error' },
          response: { type: 'array', items: { type: 'string' }, description: 'reply lines before the ok' },
          timed_out: { type: 'boolean', description: 'no answer in time; later commands were not sent' },
        },
      },
    },
  },
};

export const printerRoutes = withDocs(printerDocs, [
  defineRoute<unknown, DiscoverQueryInput>({
    method: 'GET',
    path: '/v1/printers/discover',
    summary: 'Serial ports present now, network printers announced on the LAN (and which printer uses each), and USB cameras',
    description:
      'USB CDC-ACM (ttyACM*) and USB-serial (ttyUSB*) ports with their by-id link and USB ids; pseudo-terminals never appear. ' +
      'Moonraker, OctoPrint and PrusaLink printers that announce themselves by mDNS, found by listening for mdns_browse_ms.',
    tag: TAG,
    auth: read,
    query: DiscoverQuery as unknown as JsonSchema,
    responses: { 200: { description: '`data`: the serial ports; `network`: the network printers; `mdns`: how they were found', schema: discoverResponse }, ...errorDocs(400, 403) },
    async handle(ctx, { query }, deps) {
      const [found, video] = await Promise.all([discoverPrinters(deps.printers, parseBrowseMs(query.mdns_browse_ms)), listVideoDevices(deps.printers.deps.discovery ?? {})]);
      ctx.body = { ...found, video };
    },
  }),

  defineRoute<unknown, ListQuery>({
    method: 'GET',
    path: '/v1/printers',
    summary: 'List printers with their live status',
    tag: TAG,
    auth: read,
    list: PRINTER_LIST_SPEC,
    responses: { 200: { description: '`data` (printers) and `pagination`', schema: listResponseSchema(record) }, ...errorDocs(400, 403) },
    async handle(ctx, { query }, deps) {
      ctx.body = await deps.printers.list(query);
    },
  }),

  defineRoute({
    method: 'GET',
    path: '/v1/printers/:id',
    summary: 'One printer with its live status',
    tag: TAG,
    auth: read,
    responses: { 200: { description: 'The printer', schema: record }, ...errorDocs(403, 404) },
    async handle(ctx, { params }, deps) {
      ctx.body = await deps.printers.get(params.id as string);
    },
  }),

  defineRoute<unknown, TemperaturesQueryInput>({
    method: 'GET',
    path: '/v1/printers/:id/temperatures',
    summary: 'Temperature history of the last hour (extension)',
    description:
      'Sampled in memory every 5 s while the printer is connected; kept for an hour, lost at a restart and when the printer is deleted.',
    tag: TAG,
    auth: read,
    query: TemperaturesQuery as unknown as JsonSchema,
    responses: { 200: { description: 'The samples, oldest first', schema: TemperatureHistoryRecord as unknown as JsonSchema }, ...errorDocs(400, 403, 404) },
    async handle(ctx, { params, query }, deps) {
      ctx.body = await temperatureHistory(deps, params.id as string, query.minutes);
    },
  }),

  defineRoute<PrinterCreateInput>({
    method: 'POST',
    path: '/v1/printers',
    summary: 'Add a printer: its session opens and connects in the background',
    description: 'A connection_url another printer already uses answers 409 invalid_request.',
    tag: TAG,
    auth: write,
    body: PrinterCreateBody as unknown as JsonSchema,
    idempotent: true,
    responses: { 201: { description: 'The new printer (usually offline with connecting: true)', schema: record }, ...errorDocs(400, 403, 409) },
    async handle(ctx, { body }, deps) {
      ctx.status = 201;
      ctx.body = await deps.printers.create(body);
    },
  }),

  defineRoute<PrinterUpdateInput>({
    method: 'PATCH',
    path: '/v1/printers/:id',
    summary: 'Update a printer; a new connection_url reconnects',
    description: 'Changing connection_url while a job prints answers 409 printer_busy. null clears an optional field.',
    tag: TAG,
    auth: write,
    body: PrinterUpdateBody as unknown as JsonSchema,
    responses: { 200: { description: 'The whole updated printer', schema: record }, ...errorDocs(400, 403, 404, 409) },
    async handle(ctx, { params, body }, deps) {
      ctx.body = await deps.printers.update(params.id as string, body);
    },
  }),

  defineRoute({
    method: 'DELETE',
    path: '/v1/printers/:id',
    summary: 'Remove a printer and close its session',
    description: 'Refused with 409 printer_busy while a job is printing or paused on it.',
    tag: TAG,
    auth: write,
    responses: { 204: { description: 'Removed' }, ...errorDocs(403, 404, 409) },
    async handle(ctx, { params }, deps) {
      await deps.printers.remove(params.id as string);
      ctx.status = 204;
    },
  }),

  defineRoute<PrinterActionInput>({
    method: 'POST',
    path: '/v1/printers/:id/actions',
    summary: 'Send a control action to a printer',
    description:
      'Answers once the printer accepted the command, not when it is done (homing, heating and parking go on). 409 printer_offline without a link, printer_busy when a job is in the way, invalid_state when the action does not fit the status.',
    tag: TAG,
    auth: write,
    body: PrinterActionBody as unknown as JsonSchema,
    responses: { 202: { description: 'Accepted; the printer as it stands after the command was accepted', schema: record }, ...errorDocs(400, 403, 404, 409) },
    async handle(ctx, { params, body }, deps) {
      ctx.status = 202;
      ctx.body = await runPrinterAction(deps.printers, params.id as string, body.action);
    },
  }),

  defineRoute<PrinterCommandsInput>({
    method: 'POST',
    path: '/v1/printers/:id/commands',
    summary: 'Send console G-code commands and get their replies',
    description: `Commands are sent in order, each after the previous one was answered. While a job is printing or paused only ${SAFE_WHILE_PRINTING.join(', ')} are allowed (409 printer_busy otherwise).`,
    tag: TAG,
    auth: write,
    body: PrinterCommandsBody as unknown as JsonSchema,
    responses: { 200: { description: 'Each command with its reply', schema: commandsResponse }, ...errorDocs(400, 403, 404, 409) },
    async handle(ctx, { params, body }, deps) {
      const id = params.id as string;
      ctx.body = { printer_id: id, results: await runPrinterCommands(deps.printers, id, body.commands) };
    },
  }),
]);
