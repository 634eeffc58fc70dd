// Queue page (#/queue): upload G-code, the live queue with priorities and waiting reasons, the forecast timeline, the
// stored files to queue again, and recently finished jobs. Reloads on job.* / printer.* events (coalesced); progress
// comes from job.progress and telemetry.
import { useEffect, useMemo } from 'preact/hooks';
import { html } from '../lib/html.js';
import { api, type Page } from '../lib/api.js';
import { useLive, useReloadOn, useResource } from '../lib/hooks.js';
import type { Route } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import { ErrorNote, PageHeader } from '../components/ui.js';
import { ACTIVE_STATUSES, PRIORITIES, type Forecast, type Job } from './queue-types.js';
import { applyTelemetry, statusKey, type Printer, type Telemetry } from './printer-types.js';
import { UploadPanel } from './queue-upload.js';
import { QueueList } from './queue-list.js';
import { ForecastTimeline } from './queue-forecast.js';
import { RecentJobs } from './queue-recent.js';
import { FilesPanel } from './queue-files.js';
import type { PageDef } from './index.js';
import '../styles/queue.css';

/** The scheduler's order: printing/paused first, then urgent > high > normal > low, oldest first, lowest id. */
function queueOrder(a: Job, b: Job): number {
  const running = (j: Job) => (j.status === 'queued' ? 1 : 0);
  return (
    running(a) - running(b) ||
    PRIORITIES.indexOf(b.priority) - PRIORITIES.indexOf(a.priority) ||
    a.created_at.localeCompare(b.created_at) ||
    a.id.localeCompare(b.id)
  );
}

/** One read of every active job (100 is plenty for a farm's queue), put in the scheduler's order. */
async function loadActive(): Promise<{ jobs: Job[]; more: boolean }> {
  const page = await api.get<Page<Job>>('/v1/jobs', { status: ACTIVE_STATUSES, sort: '-priority,created_at', per_page: 100 });
  return { jobs: [...page.data].sort(queueOrder), more: page.pagination.total_pages > 1 };
}

export function QueuePage({ route }: { route: Route }) {
  const { can } = useSession();
  const canWrite = can('jobs:write');
  const jobs = useResource(loadActive, []);
  const forecast = useResource(() => api.get<Forecast>('/v1/queue/forecast'), []);
  const printers = useResource(() => api.get<Page<Printer>>('/v1/printers', { per_page: 100, sort: 'name' }), []);
  const focus = route.query.get('job');

  // printer.updated too: a printer held for refused starts (or retried) changes why jobs wait.
  useReloadOn(['job.created', 'job.started', 'job.paused', 'job.resumed', 'job.completed', 'job.failed', 'job.cancelled', 'printer.online', 'printer.offline', 'printer.error', 'printer.updated'], jobs);
  useReloadOn(['job.created', 'job.started', 'job.paused', 'job.resumed', 'job.completed', 'job.failed', 'job.cancelled', 'printer.online', 'printer.offline', 'printer.error'], forecast, 1000);
  useReloadOn(['printer.online', 'printer.offline', 'printer.error'], printers, 1000);

  // Progress in place: the job's own answer (job.progress), and the printer's percent each second (telemetry).
  useLive(['job.progress'], (e) => {
    const j = e.data.object as Job;
    jobs.set((prev) => (prev ? { ...prev, jobs: prev.jobs.map((x) => (x.id === j.id ? j : x)) } : prev!));
  });
  useLive(['printer.telemetry'], (e) => {
    const t = e.data.object as Telemetry;
    // The forecast rows show each printer's status: follow it when it changes (printing -> idle has no event of its own).
    printers.set((prev) => {
      const p = prev?.data.find((x) => x.id === t.printer_id);
      if (!prev || !p || statusKey(p) === statusKey(applyTelemetry(p, t))) return prev!;
      return { ...prev, data: prev.data.map((x) => (x.id === t.printer_id ? applyTelemetry(x, t) : x)) };
    });
    if (!t.job_id || t.progress === null) return;
    jobs.set((prev) => {
      if (!prev || !prev.jobs.some((x) => x.id === t.job_id && x.progress !== t.progress)) return prev!;
      return { ...prev, jobs: prev.jobs.map((x) => (x.id === t.job_id ? { ...x, progress: t.progress! } : x)) };
    });
  });

  const onChanged = (j: Job) => {
    jobs.set((prev) => {
      if (!prev) return prev!;
      const list = j.status === 'queued' || j.status === 'printing' || j.status === 'paused' ? prev.jobs.map((x) => (x.id === j.id ? j : x)) : prev.jobs.filter((x) => x.id !== j.id);
      return { ...prev, jobs: list.sort(queueOrder) };
    });
    void forecast.reload();
  };

  const printerList = printers.data?.data ?? [];
  const printerMap = useMemo(() => new Map(printerList.map((p) => [p.id, p])), [printers.data]);
  const active = jobs.data?.jobs ?? [];
  const names = useMemo(() => new Map(active.map((j) => [j.id, j.name])), [jobs.data]);

  useEffect(() => {
    if (focus && jobs.data) document.getElementById(`job-${focus}`)?.scrollIntoView({ block: 'center' });
  }, [focus, !!jobs.data]);

  return html`<div class="page queue-page">
    <${PageHeader} title="Queue" />
    <${ErrorNote} error=${printers.error} />
    <div class="queue-layout">
      <div class="queue-col">
        <${UploadPanel} printers=${printerList} canWrite=${canWrite} onUploaded=${() => { void jobs.reload(); void forecast.reload(); }} />
        <${ErrorNote} error=${jobs.error} />
        ${jobs.data
          ? html`<${QueueList} jobs=${active} printers=${printerMap} canWrite=${canWrite} focus=${focus} onChanged=${onChanged} />
              ${jobs.data.more ? html`<p class="note warning">More than 100 jobs wait in one state; only the first 100 are listed.</p>` : null}`
          : jobs.error ? null : html`<p aria-busy="true">Loading the queue…</p>`}
      </div>
      <div class="queue-col">
        <${ForecastTimeline} forecast=${forecast.data} error=${forecast.error} printers=${printerList}
          running=${active.filter((j) => j.status !== 'queued')} names=${names} />
        <${FilesPanel} printers=${printerList} canWrite=${canWrite} onQueued=${() => { void jobs.reload(); void forecast.reload(); }} />
        <${RecentJobs} printers=${printerMap} />
      </div>
    </div>
  </div>`;
}

export const queuePage: PageDef = { path: 'queue', title: 'Queue', nav: true, scope: 'jobs:read', component: QueuePage };
