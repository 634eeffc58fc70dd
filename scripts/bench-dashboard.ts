// `npm run bench:dashboard [-- --json] [-- --quick] [-- --tabs 10] [-- --printers 10] [-- --seconds 30]`: what N open dashboard tabs
// cost the server while a farm prints (requests per tab per minute, live connections, server CPU with and without the
// tabs) and how soon a change on a printer shows in every tab. A human table; with --json the last line is one JSON object.
import { performance } from 'node:perf_hooks';
import type { Page } from 'playwright-core';
import { ensureWebBuilt, startDashboard, testGcode } from '../test/browser/harness.js';

const argv = process.argv.slice(2);
const JSON_OUT = argv.includes('--json');
const arg = (name: string, fallback: number): number => {
  const i = argv.indexOf(`--${name}`);
  const n = i >= 0 ? Number(argv[i + 1]) : NaN;
  return Number.isFinite(n) && n > 0 ? n : fallback;
};
const QUICK = argv.includes('--quick');
const TABS = arg('tabs', QUICK ? 3 : 10);
const PRINTERS = Math.max(2, arg('printers', QUICK ? 3 : 10));
const SECONDS = arg('seconds', QUICK ? 5 : 30);
const PROBES = QUICK ? 2 : 5;
const log = (msg: string): void => void (JSON_OUT || console.error(msg));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU time (user + system) this process spent over `ms` of wall time, as a percentage of one core. */
async function cpuPercentOver(ms: number): Promise<number> {
  const start = process.cpuUsage();
  const t0 = performance.now();
  await sleep(ms);
  const used = process.cpuUsage(start);
  return ((used.user + used.system) / 1000 / (performance.now() - t0)) * 100;
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

async function main(): Promise<void> {
  const web = await ensureWebBuilt();
  log(`starting a farm of ${PRINTERS} virtual printers…`);
  const d = await startDashboard({ printers: PRINTERS });
  try {
    // Every printer but the last prints a long job (telemetry and progress flow); the last stays idle for the probes.
    const long = testGcode({ moves: 40_000, minutes: 30, heat: { hotend: 215, bed: 60 } });
    for (const id of d.printerIds.slice(0, -1)) await d.uploadJob(long, { printer_id: id }, 'long.gcode');
    await d.until('the printers to print', async () => {
      const list = await d.api<{ data: Array<{ status: string }> }>('GET', '/v1/printers?status=printing&per_page=100');
      return list.data.length === PRINTERS - 1;
    }, 60_000);
    const probe = d.printerIds.at(-1)!;

    log(`server CPU without tabs for ${SECONDS} s…`);
    const cpuWithout = await cpuPercentOver(SECONDS * 1000);

    log(`opening ${TABS} tabs on the farm grid…`);
    const pages: Page[] = [];
    const requests: number[] = [];
    let streams = 0;
    let counting = false;
    for (let i = 0; i < TABS; i++) {
      const page = await d.newPage();
      const n = i;
      requests.push(0);
      page.on('request', (req) => {
        if (req.resourceType() === 'eventsource') streams++;
        else if (counting && req.url().includes('/v1/')) requests[n]!++;
      });
      await d.signInWithKey(page);
      await page.locator(`[data-printer-id="${probe}"]`).waitFor();
      pages.push(page);
    }
    await sleep(2000);
    log(`server CPU with ${TABS} tabs for ${SECONDS} s…`);
    counting = true;
    const cpuWith = await cpuPercentOver(SECONDS * 1000);
    counting = false;
    const perTabPerMinute = requests.map((r) => (r / SECONDS) * 60);

    // Event to screen: a job started on the idle printer (job.started), then cancelled (job.cancelled), until every
    // tab's card shows it. t0 is the API's answer; the time includes the scheduler's start of the job.
    log(`measuring ${PROBES} starts and cancels in every tab…`);
    const latencies: number[] = [];
    const startLatencies: number[] = [];
    const cancelLatencies: number[] = [];
    const card = `document.querySelector('[data-printer-id="${probe}"] .pc-job-name')?.textContent ?? ''`;
    // Each tab notes the wall-clock time its own DOM first shows the change (a MutationObserver), so the latency does not
    // include this script's polling of ten tabs one after another.
    const watch = (want: 'has' | 'lacks', name: string): string => `(() => {
      window.__seenAt = 0;
      const ok = () => { const t = (${card}); return ${want === 'has' ? 't.includes' : '!t.includes'}(${JSON.stringify(name)}); };
      if (ok()) { window.__seenAt = Date.now(); return; }
      const mo = new MutationObserver(() => { if (ok()) { window.__seenAt = Date.now(); mo.disconnect(); } });
      mo.observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`;
    const untilAllTabs = async (what: string, t0: number, into: number[]): Promise<void> => {
      const pending = new Set(pages.keys());
      const deadline = Date.now() + 15_000;
      while (pending.size > 0) {
        if (Date.now() > deadline) throw new Error(`${pending.size} tabs never showed ${what}`);
        for (const i of [...pending]) {
          const seenAt = Number(await pages[i]!.evaluate('window.__seenAt'));
          if (seenAt > 0) {
            latencies.push(seenAt - t0);
            into.push(seenAt - t0);
            pending.delete(i);
          }
        }
        await sleep(20);
      }
    };
    for (let k = 1; k <= PROBES; k++) {
      const name = `probe-${k}`;
      await Promise.all(pages.map((page) => page.evaluate(watch('has', name))));
      const started = Date.now();
      const job = await d.uploadJob(testGcode({ moves: 40_000, minutes: 30 }), { printer_id: probe, name }, `${name}.gcode`);
      await untilAllTabs(`${name} started`, started, startLatencies);
      await Promise.all(pages.map((page) => page.evaluate(watch('lacks', name))));
      const cancelled = Date.now();
      await d.api('DELETE', `/v1/jobs/${job.id}`);
      await untilAllTabs(`${name} cancelled`, cancelled, cancelLatencies);
      await d.api('POST', `/v1/printers/${probe}/actions`, { action: 'ready' }).catch(() => undefined);
      await sleep(500);
    }
    for (const list of [latencies, startLatencies, cancelLatencies]) list.sort((a, b) => a - b);

    const result = {
      tabs: TABS,
      printers: PRINTERS,
      printing: PRINTERS - 1,
      window_seconds: SECONDS,
      sse_connections: streams,
      requests_per_tab_per_minute_max: Number(Math.max(...perTabPerMinute).toFixed(2)),
      requests_per_tab_per_minute_mean: Number((perTabPerMinute.reduce((a, b) => a + b, 0) / TABS).toFixed(2)),
      server_cpu_percent_without_tabs: Number(cpuWithout.toFixed(1)),
      server_cpu_percent_with_tabs: Number(cpuWith.toFixed(1)),
      update_latency_p50_ms: Math.round(quantile(latencies, 0.5)),
      update_latency_max_ms: Math.round(latencies.at(-1) ?? NaN),
      job_started_latency_p50_ms: Math.round(quantile(startLatencies, 0.5)),
      job_cancelled_latency_p50_ms: Math.round(quantile(cancelLatencies, 0.5)),
      first_load_brotli_bytes: web.first_load_brotli_bytes,
    };
    const rows: Array<[string, string, string]> = [
      ['live connections', `${result.sse_connections} for ${TABS} tabs`, 'one per tab'],
      ['API requests per tab', `${result.requests_per_tab_per_minute_mean}/min (max ${result.requests_per_tab_per_minute_max})`, 'no per-second polling (< 60/min)'],
      ['process CPU, no tabs', `${result.server_cpu_percent_without_tabs} % of a core`, '-'],
      [`process CPU, ${TABS} tabs`, `${result.server_cpu_percent_with_tabs} % of a core`, '-'],
      ['job event → every tab', `p50 ${result.update_latency_p50_ms} ms, max ${result.update_latency_max_ms} ms (${latencies.length} views)`, 'within 1 s'],
      ['  upload → started', `p50 ${result.job_started_latency_p50_ms} ms (from the upload's start: includes it and the scheduler)`, '-'],
      ['  cancel → idle', `p50 ${result.job_cancelled_latency_p50_ms} ms`, '-'],
      ['first load', `${(web.first_load_brotli_bytes / 1024).toFixed(1)} KB brotli`, '<= 200 KB'],
    ];
    const w = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c]!.length), ['measure', 'result', 'target'][c]!.length));
    const line = (r: string[]) => r.map((s, c) => s.padEnd(w[c]!)).join('  ');
    console.log(`${TABS} dashboard tabs on a farm of ${PRINTERS} virtual printers (${PRINTERS - 1} printing), ${SECONDS} s windows`);
    console.log(line(['measure', 'result', 'target']));
    console.log(line(w.map((n) => '-'.repeat(n))));
    for (const r of rows) console.log(line(r));
    console.log('Process CPU includes the virtual printers and the browser driver, which run in this process too.');
    if (JSON_OUT) console.log(JSON.stringify(result));
  } finally {
    await d.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
