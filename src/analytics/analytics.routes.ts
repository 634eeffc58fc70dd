// /v1/analytics/*: fleet metrics (spec), printer / job / material reports and the streamed export (extensions).
import type { HttpDeps } from '../http/http-deps.js';
import { routeDefiner } from '../http/route.js';
import { errorDocs } from '../http/route-docs.js';
import { getOrganization } from '../auth/organization.service.js';
import { Readable } from 'node:stream';
import { resolvePeriod, resolveZone } from './analytics-period.js';
import { ExportQuery, FleetQuery, FleetRecord, JobStatsQuery, MaterialStatsQuery, PrinterStatsQuery, reportRecord } from './analytics.schemas.js';
import { encodeExport, exportRows } from './export.service.js';
import { fleetMetrics } from './fleet-metrics.service.js';
import { jobReport, materialReport, printerReport, type ReportContext } from './reports.service.js';
import type { Db } from '../storage/db.js';
import type { PrintersService } from '../printers/printers.service.js';
import { withDocs } from '../http/with-docs.js';
import { analyticsDocs } from './analytics.docs.js';

/** What these routes' handlers use from the program's deps. */
export type AnalyticsRouteDeps = HttpDeps & { db: Db; printers: Pick<PrintersService, 'get'> };
const defineRoute = routeDefiner<AnalyticsRouteDeps>();

const TAG = 'Analytics';
const AUTH = { scope: 'analytics:read' } as const;

const SERIES_DOC =
  'The period defaults to the 30 days up to now; `series` has one point per `interval` bucket of the `tz` calendar, clipped to the period.';

/** Period, zone and filters of a report request, checked (400 naming the parameter). */
async function reportContext(
  deps: AnalyticsRouteDeps,
  query: { from?: string; to?: string; group?: string; printer_id?: string; interval?: ReportContext['series']['interval']; tz?: string },
  printerId?: string,
) {
  const nowMs = deps.clock.now();
  const period = resolvePeriod(query, nowMs);
  const org = await getOrganization(deps.db);
  const ctx: ReportContext = {
    db: deps.db,
    filter: { from: period.from, to: period.to, group: query.group, printerId: printerId ?? query.printer_id },
    nowMs,
    series: { interval: query.interval ?? 'day', tz: resolveZone(query.tz, org.timezone) },
  };
  return { ctx, org };
}

export const analyticsRoutes = withDocs(analyticsDocs, [
  defineRoute<unknown, FleetQuery>({
    method: 'GET',
    path: '/v1/analytics/fleet',
    summary: 'Fleet metrics over a period',
    description: 'A job cut by the period counts only its part inside it. Period defaults: the 30 days up to now.',
    tag: TAG,
    auth: AUTH,
    query: FleetQuery,
    responses: { 200: { description: 'Fleet analytics', schema: FleetRecord }, ...errorDocs(400, 403) },
    async handle(ctx, { query }, deps) {
      const period = resolvePeriod(query, deps.clock.now());
      const org = await getOrganization(deps.db);
      const metrics = await fleetMetrics(deps.db, { from: period.from, to: period.to, group: query.group }, org, deps.clock.now());
      ctx.body = { period: { from: period.from, to: period.to }, metrics, currency: org.currency };
    },
  }),
  defineRoute<unknown, PrinterStatsQuery>({
    method: 'GET',
    path: '/v1/analytics/printers/:id',
    summary: 'Statistics of one printer',
    description: `Utilization, print time, filament and cost of the printer plus its job report. ${SERIES_DOC}`,
    tag: TAG,
    auth: AUTH,
    query: PrinterStatsQuery,
    responses: { 200: { description: 'Printer statistics', schema: reportRecord('Printer statistics') }, ...errorDocs(400, 403, 404) },
    async handle(ctx, { query, params }, deps) {
      const { ctx: report, org } = await reportContext(deps, query, params.id);
      // 404 for an unknown printer, through the printers service (routes do not read storage).
      const printer = await deps.printers.get(params.id as string);
      ctx.body = { ...(await printerReport(report, org, { id: printer.id, name: printer.name, group_name: printer.group })), currency: org.currency };
    },
  }),
  defineRoute<unknown, JobStatsQuery>({
    method: 'GET',
    path: '/v1/analytics/jobs',
    summary: 'Job statistics',
    description: `Counts by status, durations, queue wait, failure reasons. ${SERIES_DOC}`,
    tag: TAG,
    auth: AUTH,
    query: JobStatsQuery,
    responses: { 200: { description: 'Job statistics', schema: reportRecord('Job statistics') }, ...errorDocs(400, 403) },
    async handle(ctx, { query }, deps) {
      ctx.body = await jobReport((await reportContext(deps, query)).ctx);
    },
  }),
  defineRoute<unknown, MaterialStatsQuery>({
    method: 'GET',
    path: '/v1/analytics/materials',
    summary: 'Material usage',
    description: `Filament by type, colour and spool, cost per part. ${SERIES_DOC}`,
    tag: TAG,
    auth: AUTH,
    query: MaterialStatsQuery,
    responses: { 200: { description: 'Material usage', schema: reportRecord('Material usage') }, ...errorDocs(400, 403) },
    async handle(ctx, { query }, deps) {
      const { ctx: report, org } = await reportContext(deps, query);
      ctx.body = await materialReport({ ...report, type: query.type }, org, org.currency);
    },
  }),
  defineRoute<unknown, ExportQuery>({
    method: 'GET',
    path: '/v1/analytics/export',
    summary: 'Export jobs, material usage or printer metrics of a period (CSV or JSON, streamed)',
    description:
      'jobs: jobs created in the period; materials: per-tool usage rows of jobs that ended in the period; printers: each ' +
      "printer's metrics over the period. CSV is RFC 4180 with a header row and CRLF line ends; a text cell starting with " +
      '= + - @, tab or CR gets a leading single quote so spreadsheets do not run it. Streamed page by page.',
    tag: TAG,
    auth: AUTH,
    query: ExportQuery,
    responses: {
      200: { description: 'text/csv or application/json attachment' },
      ...errorDocs(400, 403),
    },
    async handle(ctx, { query }, deps) {
      const nowMs = deps.clock.now();
      const period = resolvePeriod(query, nowMs);
      const org = await getOrganization(deps.db);
      const format = query.format ?? 'csv';
      const rows = exportRows(query.dataset, { db: deps.db, filter: { from: period.from, to: period.to, group: query.group }, rates: org, nowMs });
      const stamp = (iso: string): string => iso.replace(/[-:]/g, '').slice(0, 15);
      ctx.set('Content-Disposition', `attachment; filename="${query.dataset}-${stamp(period.from)}-${stamp(period.to)}.${format}"`);
      ctx.type = format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8';
      ctx.body = Readable.from(encodeExport(query.dataset, format, rows));
    },
  }),
]);
