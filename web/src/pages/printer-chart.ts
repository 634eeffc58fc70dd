// The last hour of hotend and bed temperatures with their targets (uPlot), then live from printer.telemetry; plus the same in words.
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { html } from '../lib/html.js';
import { api } from '../lib/api.js';
import { errorWords } from '../lib/error-words.js';
import { useLive } from '../lib/hooks.js';
import { temp } from '../lib/format.js';
import { ErrorNote } from '../components/ui.js';
import type { Telemetry, Temperatures } from './printer-types.js';
import { now } from '../lib/clock.js';

const WINDOW_S = 3600;
const HEIGHT = 240;
const MIN_SPAN_S = 180;

interface Sample {
  at: string;
  hotend: number | null;
  hotend_target: number | null;
  bed: number | null;
  bed_target: number | null;
}

interface History {
  printer_id: string;
  interval_seconds: number;
  samples: Sample[];
}

/** Columns as uPlot wants them: x in Unix seconds, then hotend, hotend target, bed, bed target. */
type Columns = [number[], (number | null)[], (number | null)[], (number | null)[], (number | null)[]];
const emptyColumns = (): Columns => [[], [], [], [], []];

function push(c: Columns, atS: number, s: Omit<Sample, 'at'>): void {
  c[0].push(atS);
  c[1].push(s.hotend);
  c[2].push(s.hotend_target);
  c[3].push(s.bed);
  c[4].push(s.bed_target);
}

/** Drops what fell out of the hour. */
function trim(c: Columns, nowS: number): void {
  let cut = 0;
  while (cut < c[0].length && c[0][cut]! < nowS - WINDOW_S) cut++;
  if (cut > 0) for (const col of c) col.splice(0, cut);
}

const HOT = '#c2410c';
const BED = '#1d4ed8';
const degrees = (_u: uPlot, v: number | null) => (v === null || v === undefined ? '–' : `${v.toFixed(1)} °C`);

function chartOptions(width: number): uPlot.Options {
  return {
    width,
    height: HEIGHT,
    scales: {
      // Up to the newest reading, over what the data covers (the hour at most), but never less than a few minutes: a
      // fresh connection reads as a short line, not as seconds stretched over the width.
      x: {
        time: true,
        range: (_u, min, max) => {
          const end = max ?? now() / 1000;
          const span = Math.min(WINDOW_S, Math.max(MIN_SPAN_S, end - (min ?? end)));
          return [end - span, end];
        },
      },
      y: { range: (_u, min, max) => [Math.min(0, min ?? 0), Math.max(50, (max ?? 0) + 10)] } },
    series: [
      {},
      { label: 'Hotend', stroke: HOT, width: 2, points: { show: false }, value: degrees },
      { label: 'Hotend target', stroke: HOT, width: 1, dash: [6, 4], points: { show: false }, value: degrees },
      { label: 'Bed', stroke: BED, width: 2, points: { show: false }, value: degrees },
      { label: 'Bed target', stroke: BED, width: 1, dash: [6, 4], points: { show: false }, value: degrees },
    ],
    axes: [{}, { label: '°C', values: (_u, ticks) => ticks.map((t) => `${t}°`) }],
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
  };
}

function range(values: (number | null)[]): [number, number] | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v === null) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo === Infinity ? null : [lo, hi];
}

const last = (values: (number | null)[]): number | null => {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null) return values[i]!;
  return null;
};

/** The chart in words: current values with targets, then the hour's range of each. */
export function summarize(c: Columns): string {
  if (c[0].length === 0) return 'No temperature readings in the last hour: the printer has not been connected in that time.';
  const now = (label: string, v: number | null, target: number | null) =>
    `${label} ${temp(v)}${target ? ` (target ${temp(target)})` : ' (heater off)'}`;
  const span = (label: string, r: [number, number] | null) => (r ? `${label} between ${temp(r[0])} and ${temp(r[1])}` : `${label} not reported`);
  const minutes = Math.max(1, Math.round((c[0][c[0].length - 1]! - c[0][0]!) / 60));
  return (
    `Now: ${now('hotend', last(c[1]), last(c[2]))}, ${now('bed', last(c[3]), last(c[4]))}. ` +
    `Over the last ${minutes} min: ${span('hotend', range(c[1]))}, ${span('bed', range(c[3]))} (${c[0].length} readings).`
  );
}

export function TemperatureChart({ printerId }: { printerId: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const cols = useRef<Columns>(emptyColumns());
  /** Telemetry that arrived before the history answer; merged after it. */
  const early = useRef<Array<{ atS: number; temperatures: Temperatures }>>([]);
  const loaded = useRef(false);
  const [summary, setSummary] = useState('Loading the temperature history…');
  const [error, setError] = useState<string | null>(null);

  const redraw = () => {
    trim(cols.current, now() / 1000);
    plot.current?.setData(cols.current as uPlot.AlignedData);
    setSummary(summarize(cols.current));
  };

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    plot.current = new uPlot(chartOptions(Math.max(280, el.clientWidth)), cols.current as uPlot.AlignedData, el);
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(280, el.clientWidth), height: HEIGHT }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, []);

  useEffect(() => {
    let gone = false;
    loaded.current = false;
    cols.current = emptyColumns();
    api.get<History>(`/v1/printers/${encodeURIComponent(printerId)}/temperatures`, { minutes: 60 }).then(
      (h) => {
        if (gone) return;
        const c = emptyColumns();
        for (const s of h.samples) push(c, Date.parse(s.at) / 1000, s);
        const lastAt = c[0][c[0].length - 1] ?? 0;
        for (const t of early.current) if (t.atS > lastAt) push(c, t.atS, t.temperatures);
        early.current = [];
        cols.current = c;
        loaded.current = true;
        setError(null);
        redraw();
      },
      (err) => {
        if (gone) return;
        // Live readings still draw: the chart simply starts now.
        loaded.current = true;
        setError(`The temperature history could not be loaded: ${errorWords(err)} The chart shows live readings from now on.`);
        redraw();
      },
    );
    return () => {
      gone = true;
    };
  }, [printerId]);

  useLive(['printer.telemetry'], (e) => {
    const t = e.data.object as Telemetry;
    if (t.printer_id !== printerId) return;
    const atS = Date.parse(e.created_at) / 1000;
    if (!loaded.current) {
      early.current.push({ atS, temperatures: t.temperatures });
      return;
    }
    const xs = cols.current[0];
    if (xs.length > 0 && atS <= xs[xs.length - 1]!) return;
    push(cols.current, atS, t.temperatures);
    redraw();
  });

  return html`<section class="card temp-chart" aria-labelledby="chart-title">
    <h2 id="chart-title">Temperatures, last hour</h2>
    <figure>
      <div ref=${box} class="chart-box" aria-hidden="true"></div>
      <figcaption id="temp-summary">${summary}</figcaption>
    </figure>
    <${ErrorNote} error=${error} />
  </section>`;
}
