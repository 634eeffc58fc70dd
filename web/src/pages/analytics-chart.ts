// One analytics chart: uPlot on a canvas sized to its box, a text legend, a hover readout, and the same numbers as a table.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';

export interface ChartLine {
  label: string;
  values: (number | null)[];
  /** A CSS custom property of .analytics-page holding the colour (canvas cannot read var()). */
  colorVar: string;
  /** Bars instead of a line (amounts per bucket). */
  bars?: boolean;
  /** Dashes so two lines differ by more than colour. */
  dash?: number[];
}

/** Bucket labels as the axis shows them: an hour's "14:00", a day's "03-01", a month as is. */
export function shortLabel(label: string): string {
  if (label.includes('T')) return label.slice(11, 16);
  if (/^\d{4}-\d{2}-\d{2}$/.test(label)) return label.slice(5);
  return label;
}

function cssVar(el: Element, name: string, fallback: string): string {
  return getComputedStyle(el).getPropertyValue(name).trim() || fallback;
}

export function Chart({ id, title, summary, labels, lines, format, yMax }: {
  id: string;
  title: string;
  /** One sentence: what the chart shows, read by screen readers instead of the canvas. */
  summary: string;
  labels: string[];
  lines: ChartLine[];
  format: (v: number | null) => string;
  /** Fixed top of the y axis (1 for rates); else from the data. */
  yMax?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<number | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el || labels.length === 0) return;
    const text = cssVar(el, 'color', '#222');
    const grid = cssVar(el, '--chart-grid', 'rgba(128,128,128,0.25)');
    const xs = labels.map((_, i) => i);
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: 200,
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { size: 6 } },
      scales: { x: { time: false, range: [-0.5, Math.max(0.5, labels.length - 0.5)] }, y: { range: (_u, min, max) => [Math.min(0, min), yMax ?? (max > 0 ? max * 1.1 : 1)] } },
      axes: [
        {
          stroke: text,
          grid: { show: false },
          ticks: { stroke: grid },
          space: 48,
          incrs: [1, 2, 3, 4, 6, 7, 12, 24, 48, 96, 192],
          values: (_u, splits) => splits.map((i) => (Number.isInteger(i) ? shortLabel(labels[i] ?? '') : '')),
        },
        { stroke: text, grid: { stroke: grid }, ticks: { stroke: grid }, size: 64, values: (_u, splits) => splits.map((v) => format(v)) },
      ],
      series: [
        {},
        ...lines.map((l) => {
          const color = cssVar(el, l.colorVar, '#2563eb');
          return {
            label: l.label,
            stroke: color,
            width: 2,
            dash: l.dash,
            fill: l.bars ? color : undefined,
            paths: l.bars ? uPlot.paths.bars?.({ size: [0.6, 48] }) : undefined,
            points: { show: !l.bars, size: 5, fill: color },
            spanGaps: false,
          } satisfies uPlot.Series;
        }),
      ],
      hooks: { setCursor: [(u) => setHover(u.cursor.idx ?? null)] },
    };
    const plot = new uPlot(opts, [xs, ...lines.map((l) => l.values)] as uPlot.AlignedData, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: 200 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [labels, lines, yMax]);

  const readout = hover !== null && labels[hover] !== undefined ? `${labels[hover]}: ${lines.map((l) => `${l.label} ${format(l.values[hover] ?? null)}`).join(', ')}` : '';

  return html`<figure class="card chart" aria-labelledby=${`${id}-title`}>
    <figcaption>
      <h3 id=${`${id}-title`}>${title}</h3>
      <p class="hint">${summary}</p>
    </figcaption>
    <ul class="legend">
      ${lines.map((l) => html`<li><span class=${`legend-mark${l.bars ? ' bar' : ''}${l.dash ? ' dashed' : ''}`} style=${{ '--mark': `var(${l.colorVar})` }} aria-hidden="true"></span>${l.label}</li>`)}
    </ul>
    <div class="an-chart-box" ref=${box} role="img" aria-label=${`${title}. ${summary}`}></div>
    <p class="chart-readout" aria-hidden="true">${readout || '\u00a0'}</p>
    <details class="chart-table">
      <summary>${title} as a table</summary>
      <div class="table-wrap" tabindex="0" role="region" aria-label=${`${title} as a table`}><table class="data">
        <thead><tr><th scope="col">Period</th>${lines.map((l) => html`<th scope="col" class="num">${l.label}</th>`)}</tr></thead>
        <tbody>${labels.map((label, i) => html`<tr><th scope="row">${label}</th>${lines.map((l) => html`<td class="num">${format(l.values[i] ?? null)}</td>`)}</tr>`)}</tbody>
      </table></div>
    </details>
  </figure>`;
}
