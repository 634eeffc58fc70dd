// The farm grid's data (shared by the farm page and wall mode): printers, their running jobs and the forecast, kept live.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, type Page } from '../lib/api.js';
import { errorWords } from '../lib/error-words.js';
import { useLive } from '../lib/hooks.js';
import type { LiveEvent } from '../lib/live.js';
import type { Route } from '../lib/router.js';
import { useSession } from '../lib/session.js';
import type { Forecast, ForecastEntry, Job } from './queue-types.js';
import { applyTelemetry, statusMoved, type Printer, type Telemetry } from './printer-types.js';
import { now } from '../lib/clock.js';

export type { LoadedSpool, Printer, Temperatures } from './printer-types.js';

/** A job as shown on a card, with when its estimate was received so the ETA can count down between updates. */
export interface ShownJob extends Job {
  received_at: number;
}

export const PRINTER_STATUSES = ['printing', 'paused', 'idle', 'offline', 'error'] as const;

export interface FarmFilters {
  group: string;
  tag: string;
  status: string;
}

/** The filters live in the hash query (#/?group=bay-1&status=printing), so a wall screen's URL carries them. */
export function filtersOf(route: Route): FarmFilters {
  return { group: route.query.get('group') ?? '', tag: route.query.get('tag') ?? '', status: route.query.get('status') ?? '' };
}

export function filterQuery(f: FarmFilters): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function applyFilters(printers: Printer[], f: FarmFilters): Printer[] {
  return printers.filter(
    (p) => (!f.group || p.group === f.group) && (!f.tag || p.tags.includes(f.tag)) && (!f.status || p.status === f.status),
  );
}

/** Every printer (all pages of the list), by name. */
async function loadPrinters(): Promise<Printer[]> {
  const all: Printer[] = [];
  for (let page = 1; ; page++) {
    const res = await api.get<Page<Printer>>('/v1/printers', { per_page: 100, page, sort: 'name' });
    all.push(...res.data);
    if (page >= res.pagination.total_pages) return all;
  }
}

/** The jobs printing or paused right now (at most one per printer). */
async function loadActiveJobs(): Promise<ShownJob[]> {
  const [printing, paused] = await Promise.all(
    ['printing', 'paused'].map((status) => api.get<Page<Job>>('/v1/jobs', { status, per_page: 100 })),
  );
  const at = now();
  return [...printing!.data, ...paused!.data].map((j) => ({ ...j, received_at: at }));
}

export interface FarmData {
  printers: Printer[] | undefined;
  jobs: Map<string, ShownJob>;
  /** The scheduler's next job for each printer (the earliest forecast entry on it). */
  next: Map<string, ForecastEntry>;
  error: string | null;
  /** Replace one printer (the answer to an action). */
  setPrinter: (p: Printer) => void;
  reload: () => Promise<void>;
}

/** How long live events are gathered before the cards re-render or anything is fetched again. */
const COALESCE_MS = 100;

/**
 * Loads printers, running jobs and the forecast once, then follows the live stream: telemetry patches the cards
 * directly; printer and job events refetch just the printer concerned, the running jobs and the forecast, gathered
 * over a tenth of a second so a burst of events costs one request each. No timer runs without an event.
 */
export function useFarmData(): FarmData {
  const { can } = useSession();
  const canJobs = can('jobs:read');
  const [printers, setPrinters] = useState<Printer[] | undefined>(undefined);
  const [jobs, setJobs] = useState<Map<string, ShownJob>>(new Map());
  const [forecast, setForecast] = useState<Forecast | null>(null);
  const [error, setError] = useState<string | null>(null);

  const pending = useRef({ telemetry: new Map<string, Telemetry>(), printers: new Set<string>(), jobs: false, forecast: false });
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const fail = (err: unknown) => setError(errorWords(err));

  const reloadJobs = useCallback(async () => {
    if (!canJobs) return;
    const list = await loadActiveJobs();
    setJobs(new Map(list.map((j) => [j.id, j])));
  }, [canJobs]);
  const reloadForecast = useCallback(async () => {
    if (!canJobs) return;
    setForecast(await api.get<Forecast>('/v1/queue/forecast'));
  }, [canJobs]);

  const reload = useCallback(async () => {
    try {
      const [list] = await Promise.all([loadPrinters(), reloadJobs(), reloadForecast()]);
      setPrinters(list);
      setError(null);
    } catch (err) {
      fail(err);
    }
  }, [reloadJobs, reloadForecast]);

  useEffect(() => {
    void reload();
    return () => {
      if (timer.current) clearTimeout(timer.current);
    };
  }, [reload]);

  const refetchPrinter = async (id: string) => {
    try {
      const p = await api.get<Printer>(`/v1/printers/${encodeURIComponent(id)}`);
      setPrinters((prev) => {
        if (!prev) return prev;
        const at = prev.findIndex((x) => x.id === id);
        if (at < 0) return [...prev, p].sort((a, b) => a.name.localeCompare(b.name));
        const next = prev.slice();
        next[at] = p;
        return next;
      });
    } catch (err: any) {
      // A printer deleted meanwhile leaves the grid.
      if (err?.status === 404) setPrinters((prev) => prev?.filter((x) => x.id !== id));
      else fail(err);
    }
  };

  const flush = () => {
    timer.current = null;
    const work = pending.current;
    pending.current = { telemetry: new Map(), printers: new Set(), jobs: false, forecast: false };
    if (work.telemetry.size > 0) {
      setPrinters((prev) =>
        prev?.map((p) => {
          const t = work.telemetry.get(p.id);
          return t ? applyTelemetry(p, t) : p;
        }),
      );
    }
    for (const id of work.printers) void refetchPrinter(id);
    if (work.jobs) reloadJobs().catch(fail);
    if (work.forecast) reloadForecast().catch(fail);
  };

  const schedule = () => {
    if (!timer.current) timer.current = setTimeout(flush, COALESCE_MS);
  };

  const printersRef = useRef(printers);
  printersRef.current = printers;
  const jobsRef = useRef(jobs);
  jobsRef.current = jobs;

  useLive(['printer.*', 'job.*'], (event: LiveEvent) => {
    const work = pending.current;
    const obj = event.data.object as Record<string, any>;
    if (event.type === 'printer.telemetry') {
      const t = obj as Telemetry;
      work.telemetry.set(t.printer_id, t);
      const known = printersRef.current?.find((p) => p.id === t.printer_id);
      // An unknown printer, or a status change (its error and offline reason change with it, and a link that fails
      // while connecting may announce no event): read its record.
      if (!known || statusMoved(known, t)) work.printers.add(t.printer_id);
      // A job started or ended that no job event told us about yet: its job and the queue's plan changed too.
      if (known && (t.job_id !== known.current_job || (t.job_id && !jobsRef.current.has(t.job_id)))) {
        work.jobs = true;
        work.forecast = true;
      }
    } else if (event.type === 'job.progress') {
      const job = obj as Job;
      setJobs((prev) => new Map(prev).set(job.id, { ...job, received_at: now() }));
      return;
    } else if (event.type.startsWith('printer.')) {
      const id = (obj.id ?? obj.printer_id) as string | undefined;
      if (id) work.printers.add(id);
      work.forecast = true;
    } else {
      // job.created/started/paused/resumed/completed/failed/cancelled: the printer's ready flag and the plan change.
      if (obj.printer_id) work.printers.add(obj.printer_id as string);
      if (event.type !== 'job.created') work.jobs = true;
      work.forecast = true;
    }
    schedule();
  });

  const next = new Map<string, ForecastEntry>();
  for (const e of forecast?.entries ?? []) {
    const seen = next.get(e.printer_id);
    if (!seen || e.start_at < seen.start_at) next.set(e.printer_id, e);
  }

  const setPrinter = (p: Printer) => setPrinters((prev) => prev?.map((x) => (x.id === p.id ? p : x)));
  return { printers, jobs, next, error, setPrinter, reload };
}

/** Counts for the summary line. */
export function summarize(printers: Printer[]): { printing: number; paused: number; idle: number; down: number; notReady: number } {
  const n = { printing: 0, paused: 0, idle: 0, down: 0, notReady: 0 };
  for (const p of printers) {
    if (p.status === 'printing') n.printing++;
    else if (p.status === 'paused') n.paused++;
    else if (p.status === 'idle') {
      n.idle++;
      if (!p.ready) n.notReady++;
    } else n.down++;
  }
  return n;
}
