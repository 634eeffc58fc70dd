// The Analytics page (#/analytics): period, group and interval pickers, figure tiles, four charts, per-printer table, CSV export.
import { useMemo, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api, withQuery } from '../lib/api.js';
import { useReloadOn, useResource } from '../lib/hooks.js';
import { useSession } from '../lib/session.js';
import { duration, grams, money } from '../lib/format.js';
import { ErrorNote, Notice, PageHeader } from '../components/ui.js';
import type { PageDef } from './index.js';
import { loadPrinters } from './materials-api.js';
import { NeedsScope } from './settings-fields.js';
import { autoInterval, bucketCount, isoDay, periodQuery, periodWords, PRESETS, type Interval, type PeriodChoice, type Preset } from './analytics-period.js';
import { rate, toPoints, type FleetReport, type JobsReport, type MaterialsReport, type PrinterRow } from './analytics-series.js';
import { Chart, type ChartLine } from './analytics-chart.js';
import { PrinterTable } from './analytics-printers.js';
import { now } from '../lib/clock.js';
import '../styles/analytics.css';

const INTERVALS: { value: Interval | ''; label: string }[] = [
  { value: '', label: 'Automatic' },
  { value: 'hour', label: 'Hour' },
  { value: 'day', label: 'Day' },
  { value: 'week', label: 'Week' },
  { value: 'month', label: 'Month' },
];

const DATASETS = [
  { value: 'jobs', label: 'Jobs (one row per job)' },
  { value: 'materials', label: 'Material usage (one row per job and tool)' },
  { value: 'printers', label: 'Printers (one row per printer)' },
];

/** Utilization from the seconds (the API's rate has 4 decimals, so a short print on a long period shows as 0). */
function utilization(report: Report): number {
  const m = report.fleet.metrics;
  const seconds = (Date.parse(report.fleet.period.to) - Date.parse(report.fleet.period.from)) / 1000;
  return m.total_printers > 0 && seconds > 0 ? m.total_print_time / (m.total_printers * seconds) : 0;
}

interface Report {
  query: { from: string; to: string; group?: string };
  interval: Interval;
  fleet: FleetReport;
  jobs: JobsReport;
  materials: MaterialsReport;
  printers: PrinterRow[];
}

async function loadReport(choice: PeriodChoice, group: string): Promise<Report | { problem: string }> {
  const period = periodQuery(choice);
  if ('problem' in period) return period;
  const interval = choice.interval || autoInterval(period.ms);
  if (bucketCount(period.ms, interval) > 1000) return { problem: `That is more than 1000 ${interval}s: choose a wider interval (or Automatic).` };
  const q = { from: period.from, to: period.to, ...(group ? { group } : {}) };
  const [fleet, jobs, materials, printers] = await Promise.all([
    api.get<FleetReport>('/v1/analytics/fleet', q),
    api.get<JobsReport>('/v1/analytics/jobs', { ...q, interval }),
    api.get<MaterialsReport>('/v1/analytics/materials', { ...q, interval }),
    // The printers export (JSON) has every printer's metrics of the period in one request.
    api.get<PrinterRow[]>('/v1/analytics/export', { dataset: 'printers', format: 'json', ...q }),
  ]);
  return { query: q, interval, fleet, jobs, materials, printers };
}

function Tile({ label, value, sub }: { label: string; value: string; sub?: string }) {
  return html`<div class="card tile"><span class="tile-label">${label}</span><span class="tile-value">${value}</span>${sub ? html`<span class="hint">${sub}</span>` : null}</div>`;
}

function Charts({ report }: { report: Report }) {
  const currency = report.fleet.currency ?? report.materials.currency ?? 'EUR';
  const charts = useMemo(() => {
    const points = toPoints(report.fleet, report.jobs, report.materials);
    const labels = points.map((p) => p.label);
    const line = (label: string, values: (number | null)[], colorVar: string, more: Partial<ChartLine> = {}): ChartLine[] => [{ label, values, colorVar, ...more }];
    return {
      labels,
      utilization: line('Utilization', points.map((p) => p.utilization), '--chart-1'),
      success: line('Success rate', points.map((p) => p.success), '--chart-2'),
      cost: [
        { label: 'Estimated cost', values: points.map((p) => p.totalCost), colorVar: '--chart-3', bars: true },
        { label: 'Filament cost', values: points.map((p) => p.filamentCost), colorVar: '--chart-4', dash: [6, 4] },
      ] as ChartLine[],
      material: line('Filament used', points.map((p) => p.grams), '--chart-4', { bars: true }),
    };
  }, [report]);
  const per = report.interval;
  const m = report.fleet.metrics;
  return html`<div class="charts">
    <${Chart} id="chart-utilization" title="Utilization" labels=${charts.labels} lines=${charts.utilization} format=${rate} yMax=${1}
      summary=${`Share of printer time spent printing, per ${per}; ${rate(utilization(report))} over the whole period.`} />
    <${Chart} id="chart-success" title="Success rate" labels=${charts.labels} lines=${charts.success} format=${rate} yMax=${1}
      summary=${`Completed jobs among those that completed or failed, per ${per} (cancellations left out; no point when no job ended); ${rate(m.success_rate)} overall.`} />
    <${Chart} id="chart-cost" title="Cost" labels=${charts.labels} lines=${charts.cost} format=${(v: number | null) => money(v, currency)}
      summary=${`Estimated cost per ${per}: filament as measured, machine time and energy spread by printing time; ${money(m.estimated_cost, currency)} in total.`} />
    <${Chart} id="chart-material" title="Filament used" labels=${charts.labels} lines=${charts.material} format=${(v: number | null) => grams(v)}
      summary=${`Grams of filament used per ${per}; ${grams(m.material_consumed)} in total.`} />
  </div>`;
}

export function AnalyticsPage() {
  const { can } = useSession();
  const [choice, setChoice] = useState<PeriodChoice>(() => ({ preset: '7d', from: isoDay(now() - 6 * 86400_000), to: isoDay(now()), interval: '' }));
  const [group, setGroup] = useState('');
  const [dataset, setDataset] = useState('jobs');
  const report = useResource(() => loadReport(choice, group), [choice, group]);
  // A job that ends changes every figure; presets also move "now" forward on each reload.
  useReloadOn(['job.started', 'job.completed', 'job.failed', 'job.cancelled'], report, 3000);
  const printers = useResource(loadPrinters, []);
  const groups = useMemo(() => [...new Set((printers.data ?? []).map((p) => p.group).filter((g): g is string => !!g))].sort(), [printers.data]);
  const data = report.data && !('problem' in report.data) ? report.data : null;
  const problem = report.data && 'problem' in report.data ? report.data.problem : null;
  const set = (patch: Partial<PeriodChoice>) => setChoice({ ...choice, ...patch });

  if (!can('analytics:read')) return html`<${PageHeader} title="Analytics" /><${NeedsScope} scope="analytics:read" what="Analytics" />`;
  const currency = data?.fleet.currency ?? 'EUR';
  const m = data?.fleet.metrics;
  const exportHref = data ? withQuery('/v1/analytics/export', { dataset, format: 'csv', ...data.query }) : null;

  return html`<div class="analytics-page">
    <${PageHeader} title="Analytics" />
    <form class="card period-picker" aria-label="Period and printers" onSubmit=${(e: Event) => e.preventDefault()}>
      <fieldset class="presets">
        <legend>Period</legend>
        ${PRESETS.map((p) => html`<label class="chip"><input type="radio" name="preset" value=${p.value} checked=${choice.preset === p.value}
          onChange=${() => set({ preset: p.value as Preset })} /> ${p.label}</label>`)}
      </fieldset>
      ${choice.preset === 'custom'
        ? html`<div class="row wrap">
            <div class="field"><label for="an-from">First day</label><input id="an-from" type="date" value=${choice.from} max=${choice.to} onChange=${(e: Event) => set({ from: (e.currentTarget as HTMLInputElement).value })} /></div>
            <div class="field"><label for="an-to">Last day</label><input id="an-to" type="date" value=${choice.to} min=${choice.from} onChange=${(e: Event) => set({ to: (e.currentTarget as HTMLInputElement).value })} /></div>
            <p class="hint">Whole days in UTC, both included.</p>
          </div>`
        : null}
      <div class="row wrap">
        <div class="field"><label for="an-group">Printer group</label>
          <select id="an-group" value=${group} onChange=${(e: Event) => setGroup((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">All printers</option>
            ${groups.map((g) => html`<option value=${g}>${g}</option>`)}
          </select>
        </div>
        <div class="field"><label for="an-interval">Points per</label>
          <select id="an-interval" value=${choice.interval} onChange=${(e: Event) => set({ interval: (e.currentTarget as HTMLSelectElement).value as Interval | '' })}>
            ${INTERVALS.map((i) => html`<option value=${i.value}>${i.label}${i.value === '' && data ? ` (${data.interval})` : ''}</option>`)}
          </select>
        </div>
      </div>
    </form>
    ${problem ? html`<div class="note warning" role="alert">${problem}</div>` : null}
    <${ErrorNote} error=${report.error ?? printers.error} />
    <p class="visually-hidden" aria-live="polite">${report.loading ? 'Loading figures…' : data ? `Figures for the ${periodWords(choice)}${group ? `, group ${group}` : ''}.` : ''}</p>
    <div class="analytics-body" aria-busy=${report.loading ? 'true' : 'false'}>
      ${m && data
        ? html`<section class="tiles" aria-label="Figures of the period">
              <${Tile} label="Utilization" value=${rate(utilization(data))} sub=${`${m.active_printers} of ${m.total_printers} printers printed`} />
              <${Tile} label="Success rate" value=${rate(m.success_rate)} sub=${`${data.jobs.counts.completed} completed, ${data.jobs.counts.failed} failed`} />
              <${Tile} label="Jobs completed" value=${String(m.jobs_completed)} sub=${`${data.jobs.counts.cancelled} cancelled`} />
              <${Tile} label="Print time" value=${duration(m.total_print_time)} />
              <${Tile} label="Estimated cost" value=${money(m.estimated_cost, currency)} sub="filament, machine time, energy" />
              <${Tile} label="Filament used" value=${grams(m.material_consumed)} />
            </section>
            ${m.jobs_completed === 0 && m.total_print_time === 0 ? html`<${Notice}>Nothing was printed in this period${group ? ' by this group' : ''}: the charts are flat.<//>` : null}
            <${Charts} report=${data} />
            <section class="card" aria-labelledby="an-printers-title">
              <h2 id="an-printers-title">Printers</h2>
              <${PrinterTable} rows=${data.printers} currency=${currency} periodSeconds=${(Date.parse(data.fleet.period.to) - Date.parse(data.fleet.period.from)) / 1000} />
            </section>
            ${data.materials.by_type.length > 0
              ? html`<section class="card" aria-labelledby="an-types-title">
                  <h2 id="an-types-title">Filament by type</h2>
                  <table class="data"><thead><tr><th scope="col">Type</th><th scope="col" class="num">Used</th><th scope="col" class="num">Cost</th></tr></thead>
                    <tbody>${data.materials.by_type.map((t) => html`<tr><th scope="row">${t.type}</th><td class="num">${grams(t.grams)}</td><td class="num">${money(t.cost, currency)}</td></tr>`)}</tbody></table>
                </section>`
              : null}
            ${data.jobs.failure_reasons.length > 0
              ? html`<section class="card" aria-labelledby="an-fail-title">
                  <h2 id="an-fail-title">Why jobs failed</h2>
                  <ul>${data.jobs.failure_reasons.map((r) => html`<li><code>${r.code}</code>: ${r.count} job${r.count === 1 ? '' : 's'}</li>`)}</ul>
                </section>`
              : null}`
        : report.loading ? html`<p>Loading figures…</p>` : null}
    </div>
    <section class="card export" aria-labelledby="an-export-title">
      <h2 id="an-export-title">Export</h2>
      <div class="row wrap end-align">
        <div class="field"><label for="an-dataset">Data</label>
          <select id="an-dataset" value=${dataset} onChange=${(e: Event) => setDataset((e.currentTarget as HTMLSelectElement).value)}>
            ${DATASETS.map((d) => html`<option value=${d.value}>${d.label}</option>`)}
          </select>
        </div>
        ${exportHref
          ? html`<a class="btn primary" id="an-export" href=${exportHref} download=${`${dataset}.csv`}>Export CSV</a>`
          : html`<span class="hint">Choose a valid period to export.</span>`}
      </div>
      <p class="hint">A CSV file (spreadsheet) of the ${periodWords(choice)}${group ? `, printers of group ${group} only` : ''}.</p>
    </section>
  </div>`;
}

export const analyticsPage: PageDef = { path: 'analytics', title: 'Analytics', nav: true, scope: 'analytics:read', component: AnalyticsPage };
