// Wall mode (#/wall, same filters as the farm page): every printer as a large card sized so the whole farm fits one TV screen.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import type { Route } from '../lib/router.js';
import { ErrorNote } from '../components/ui.js';
import { LiveIndicator } from '../components/live-indicator.js';
import { PrinterCard } from '../components/printer-card.js';
import { useCameraMap } from '../lib/cameras.js';
import { applyFilters, filterQuery, filtersOf, useFarmData } from './farm-data.js';
import { SummaryLine } from './farm.js';
import type { PageDef } from './index.js';
import '../styles/farm.css';

/** Cards look best about this much wider than tall. */
const CARD_ASPECT = 1.35;

/** The column count that gives the largest cards while all `n` fit in `width` x `height`. */
export function bestColumns(n: number, width: number, height: number): number {
  let best = 1;
  let bestSize = 0;
  for (let cols = 1; cols <= Math.max(1, n); cols++) {
    const rows = Math.ceil(n / cols);
    const w = width / cols;
    const h = height / rows;
    const size = Math.min(w, h * CARD_ASPECT);
    if (size > bestSize) {
      bestSize = size;
      best = cols;
    }
  }
  return best;
}

function useViewport(): { width: number; height: number } {
  const [size, setSize] = useState({ width: innerWidth, height: innerHeight });
  useEffect(() => {
    const update = () => setSize({ width: innerWidth, height: innerHeight });
    addEventListener('resize', update);
    return () => removeEventListener('resize', update);
  }, []);
  return size;
}

export function WallPage({ route }: { route: Route }) {
  const farm = useFarmData();
  const cameras = useCameraMap();
  const viewport = useViewport();
  const filters = filtersOf(route);
  const shown = farm.printers ? applyFilters(farm.printers, filters) : [];
  const narrow = viewport.width < 700;
  // On a phone the cards simply stack; on a screen they share it so nothing needs scrolling.
  const cols = narrow ? 1 : bestColumns(shown.length, viewport.width, viewport.height - Math.max(52, viewport.width * 0.03));
  const rows = Math.max(1, Math.ceil(shown.length / cols));
  const filterWords = [filters.group && `group ${filters.group}`, filters.tag && `tag ${filters.tag}`, filters.status && `status ${filters.status}`]
    .filter(Boolean)
    .join(', ');
  return html`<div class=${`wall${narrow ? ' wall-narrow' : ''}`}>
    <a class="skip-link" href=${`#/${filterQuery(filters)}`}>Leave wall mode</a>
    <header class="wall-head">
      <h1 class="wall-title"><span class="brand-mark" aria-hidden="true">▦</span> printfarm${filterWords ? html`<span class="wall-filter"> · ${filterWords}</span>` : null}</h1>
      ${farm.printers ? html`<${SummaryLine} printers=${shown} />` : null}
      <${LiveIndicator} />
    </header>
    <${ErrorNote} error=${farm.error} />
    ${farm.printers && shown.length === 0
      ? html`<p class="wall-empty">${farm.printers.length === 0 ? 'No printers yet.' : 'No printer matches these filters.'}</p>`
      : html`<div class="wall-grid" style=${narrow ? undefined : { gridTemplateColumns: `repeat(${cols}, minmax(0, 1fr))`, gridTemplateRows: `repeat(${rows}, minmax(0, 1fr))` }}>
          ${shown.map(
            (p) => html`<${PrinterCard} key=${p.id} printer=${p} job=${p.current_job ? farm.jobs.get(p.current_job) : undefined} next=${farm.next.get(p.id)} cameras=${cameras.get(p.id)} wall />`,
          )}
        </div>`}
  </div>`;
}

export const wallPage: PageDef = { path: 'wall', title: 'Wall', nav: false, scope: 'printers:read', bare: true, component: WallPage };
