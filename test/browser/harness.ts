// Browser test harness: a real server with virtual printers, Debian's chromium via playwright-core, sign-in, screenshots, axe.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ShiftedClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { NotificationsOptions } from '../../src/notifications/notifications-runtime.js';
import { buildWeb, type WebBuildReport } from '../../scripts/web/build-web.js';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
export const SCREENSHOTS = path.join(process.cwd(), 'test-output', 'browser');
export const DESKTOP = { width: 1280, height: 800 };
export const MOBILE = { width: 390, height: 844 };
/**
 * Where the server's clock starts unless a test says otherwise: a Monday morning, so nothing the tests do in a few minutes
 * crosses a day. The dashboard takes its "now" from the server (the Date header), so this one setting governs both.
 */
export const DEFAULT_START = '2026-11-23T10:00:00.000Z';
/** The signed-out session probe every fresh page makes: its 401 is how the dashboard learns it must show sign-in. */
const SESSION_PROBE = { status: 401, path: '/v1/sessions/current' };

/** CI installs chromium in .ci/run, so there a missing browser is a failure, not a skip. Pass to describe({ skip }). */
export const browserSkip: string | false =
  !existsSync(CHROMIUM) && !process.env.CI ? `${CHROMIUM} is not installed (apt-get install chromium)` : false;

// One build per test process: every test file of the process shares it (esbuild takes ~100 ms).
let built: Promise<WebBuildReport> | undefined;
export const ensureWebBuilt = (): Promise<WebBuildReport> => (built ??= buildWeb());

export interface DashboardOptions {
  /** Virtual printers to create (default 0), named "Printer 1".. with sim:// URLs. */
  printers?: number;
  /**
   * sim:// query of every printer (default `speed=20`: heating and moves 20x faster, so a print of a few hundred
   * moves takes seconds). See SimulatorOptions.
   */
  simQuery?: string;
  /** Extra fields of each printer's POST /v1/printers body, by index (group, tags, material_type, ...). */
  printerFields?: (index: number) => Record<string, unknown>;
  /** Live stream heartbeat (ms): how soon an open stream notices its session ended (default 15 s). */
  heartbeatMs?: number;
  /** The instant (ISO) the server's clock starts at; it runs at the machine's pace from there. Default DEFAULT_START. */
  startAt?: string;
  /** Extra Chromium switches, e.g. `--host-resolver-rules=MAP farm.test 127.0.0.1` for a plain-http (insecure) origin. */
  chromiumArgs?: string[];
  /** Notification grouping window and send tuning (tests shorten the 10 s grouping window). */
  notifications?: NotificationsOptions;
}

/** An HTTP answer a test provokes on purpose: its status and path (a string is the whole path, or a pattern). */
export interface ExpectedAnswer {
  status: number;
  path: string | RegExp;
}

export interface ApiAnswer<T = any> {
  status: number;
  body: T;
}

export interface Dashboard {
  server: RunningServer;
  /** The server's clock, which the dashboard follows: tests read the time (and may set it) here, never on the wall clock. */
  clock: ShiftedClock;
  url: string;
  adminKey: string;
  /** The created printers as POST /v1/printers answered (ids in creation order). */
  printerIds: string[];
  /** An API request with the admin key (Bearer) for test setup; rejects unless the status is 2xx. */
  api<T = any>(method: string, apiPath: string, body?: unknown): Promise<T>;
  /** The same, resolving to the status and body whatever the status. */
  apiRaw<T = any>(method: string, apiPath: string, body?: unknown): Promise<ApiAnswer<T>>;
  /** Uploads G-code as a job (POST /v1/jobs multipart) and returns the created job. */
  uploadJob(gcode: string, fields?: Record<string, string>, fileName?: string): Promise<any>;
  /** Waits (bounded) until `check` holds, polling the API every 100 ms (test setup only; the page never polls). */
  until(what: string, check: () => Promise<boolean> | boolean, timeoutMs?: number): Promise<void>;
  /** A new page in its own browser context (own cookies) at 1280x800, or 390x844 with touch for `mobile`. */
  newPage(options?: { mobile?: boolean }): Promise<Page>;
  /** Opens the dashboard, fills the API key form (the admin key by default) and waits for the signed-in frame. */
  signInWithKey(page: Page, key?: string): Promise<void>;
  /** Screenshots `<name>-desktop.png` at 1280x800 and `<name>-mobile.png` at 390x844 into test-output/browser/. */
  shoot(page: Page, name: string, options?: { fullPage?: boolean }): Promise<void>;
  /** Runs axe on the page as it is; fails listing every serious or critical violation. */
  checkA11y(page: Page, name: string): Promise<void>;
  /** Page errors, and console errors other than failed resource loads, seen on a page (CSP violations included). */
  pageErrors(page: Page): string[];
  /** Declares answers >= 400 the current test provokes on purpose (until the next checkPages). */
  expectAnswers(...answers: ExpectedAnswer[]): void;
  /**
   * Fails listing every console error, page error and HTTP answer >= 400 seen on any page since the last check that the
   * test did not declare (the signed-out session probe excepted); then starts afresh. Call it in afterEach.
   */
  checkPages(): void;
  /** Closes everything; fails like checkPages when something unexpected was seen since the last check. */
  close(): Promise<void>;
}

/** A tiny solid-colour PNG (the thumbnail a slicer would embed), made here so the tests need no image file. */
export function solidPng(size: number, rgb: [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => rgb).flat())]);
  const raw = Buffer.concat(Array.from({ length: size }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * G-code for the virtual printers: `moves` 1 mm moves at 10 mm/s (0.1 s each at speed=1, 5 ms at the default
 * speed=20), a PrusaSlicer-style header with an estimate, optionally an embedded PNG thumbnail and heater targets.
 */
export function testGcode(opts: { moves?: number; minutes?: number; type?: string; thumbnail?: Buffer; heat?: { hotend: number; bed: number } } = {}): string {
  const lines = ['; generated by PrusaSlicer 2.8.1+linux-x64 on 2026-11-23 at 10:00:00 UTC'];
  if (opts.thumbnail) {
    const b64 = opts.thumbnail.toString('base64');
    lines.push(';', `; thumbnail begin 32x32 ${b64.length}`);
    for (let i = 0; i < b64.length; i += 78) lines.push(`; ${b64.slice(i, i + 78)}`);
    lines.push('; thumbnail end', ';');
  }
  // Heaters on without waiting for them (M104/M140, not M109/M190): the print starts at once and the card shows them climb.
  if (opts.heat) lines.push(`M104 S${opts.heat.hotend}`, `M140 S${opts.heat.bed}`);
  lines.push('G90', 'M83', 'G1 X0 Y0 Z0.2 F6000');
  for (let i = 1; i <= (opts.moves ?? 400); i++) lines.push(`G1 X${i % 2 === 0 ? 10 : 11} Y10 E0.02 F600`);
  lines.push(
    '; filament used [g] = 2.5',
    `; estimated printing time (normal mode) = ${opts.minutes ?? 1}m 0s`,
    `; filament_type = ${opts.type ?? 'PLA'}`,
    '; nozzle_diameter = 0.4',
  );
  return lines.join('\n') + '\n';
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Two animation frames: the layout after a resize or a state change has been painted. */
const settled = (page: Page) => page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');

export async function startDashboard(options: DashboardOptions = {}): Promise<Dashboard> {
  const buildPromise = ensureWebBuilt();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'printfarm-browser-data-'));
  mkdirSync(SCREENSHOTS, { recursive: true });
  const clock = new ShiftedClock(Date.parse(options.startAt ?? DEFAULT_START));
  const server = await startServer(
    { host: '127.0.0.1', port: 0, dataDir, env: 'live' },
    {
      logger: silentLogger,
      clock,
      ...(options.heartbeatMs ? { events: { sse: { heartbeatMs: options.heartbeatMs } } } : {}),
      ...(options.notifications ? { notifications: options.notifications } : {}),
    },
  );
  assert.ok(server.initialAdminKey, 'a fresh data dir gets an admin key');
  const adminKey = server.initialAdminKey;
  const contexts = new Set<BrowserContext>();
  const errors = new Map<Page, string[]>();
  // What every page of every context showed since the last check, and what the current test said it provokes.
  let seen: string[] = [];
  let expected: ExpectedAnswer[] = [SESSION_PROBE];
  const isExpected = (status: number, urlPath: string) =>
    expected.some((e) => e.status === status && (typeof e.path === 'string' ? urlPath === e.path : e.path.test(urlPath)));
  const watch = (context: BrowserContext, label: string) => {
    context.on('page', (page) => {
      const mine: string[] = [];
      errors.set(page, mine);
      page.on('pageerror', (err) => {
        mine.push(`page error: ${err.message}`);
        seen.push(`${label}: page error: ${err.message}`);
      });
      page.on('console', (msg) => {
        if (msg.type() !== 'error') return;
        // A failed load by status is the response listener's business (it knows the path and what the test expects).
        if (/^Failed to load resource: the server responded with a status of \d+/.test(msg.text())) return;
        if (!msg.text().startsWith('Failed to load resource')) mine.push(`console: ${msg.text()}`);
        seen.push(`${label}: console: ${msg.text()} (at ${msg.location().url})`);
      });
      page.on('response', (res) => {
        if (res.status() < 400) return;
        const url = new URL(res.url());
        if (!isExpected(res.status(), url.pathname)) seen.push(`${label}: HTTP ${res.status()} ${res.request().method()} ${url.pathname}${url.search}`);
      });
    });
  };
  const checkPages = () => {
    const unexpected = seen;
    seen = [];
    expected = [SESSION_PROBE];
    assert.deepEqual(unexpected, [], `unexpected errors on the dashboard's pages:\n${unexpected.join('\n')}`);
  };
  let browser: Browser | undefined;

  const apiRaw = async <T = any>(method: string, apiPath: string, body?: unknown): Promise<ApiAnswer<T>> => {
    const headers: Record<string, string> = { Authorization: `Bearer ${adminKey}` };
    let payload: FormData | string | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(`${server.url}${apiPath}`, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed as T };
  };
  const api = async <T = any>(method: string, apiPath: string, body?: unknown): Promise<T> => {
    const res = await apiRaw<T>(method, apiPath, body);
    assert.ok(res.status >= 200 && res.status < 300, `${method} ${apiPath} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };

  const printerIds: string[] = [];
  try {
    for (let i = 1; i <= (options.printers ?? 0); i++) {
      const created = await api<{ id: string }>('POST', '/v1/printers', {
        name: `Printer ${i}`,
        connection_url: `sim://browser-${i}?${options.simQuery ?? 'speed=20'}`,
        ...options.printerFields?.(i - 1),
      });
      printerIds.push(created.id);
    }
    if (printerIds.length > 0) {
      await waitFor('every virtual printer to be idle', async () => {
        const list = await api<{ data: Array<{ status: string }> }>('GET', '/v1/printers?per_page=100');
        return list.data.every((p) => p.status === 'idle');
      });
    }
    await buildPromise;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS, ...(options.chromiumArgs ?? [])] });
  } catch (err) {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }

  const dashboard: Dashboard = {
    server,
    clock,
    url: server.url,
    adminKey,
    printerIds,
    api,
    apiRaw,
    async uploadJob(gcode, fields = {}, fileName = 'part.gcode') {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      form.append('file', new Blob([gcode]), fileName);
      const created = await api<{ data: any }>('POST', '/v1/jobs', form);
      return created.data;
    },
    until: waitFor,
    async newPage({ mobile = false } = {}) {
      const context = await browser!.newContext({
        viewport: mobile ? MOBILE : DESKTOP,
        // Times of day on screen read the same on any machine: UTC, in US English (11:45 PM).
        timezoneId: 'UTC',
        locale: 'en-US',
        ...(mobile ? { isMobile: true, hasTouch: true, deviceScaleFactor: 1 } : {}),
      });
      contexts.add(context);
      watch(context, mobile ? 'phone page' : 'desktop page');
      return context.newPage();
    },
    async signInWithKey(page, key = adminKey) {
      await page.goto(server.url);
      await page.locator('#signin-api-key').fill(key);
      await page.locator('#signin-key button[type=submit]').click();
      await page.locator('#sign-out').waitFor({ state: 'visible' });
    },
    async shoot(page, name, { fullPage = false } = {}) {
      const original = page.viewportSize();
      for (const [label, size] of [['desktop', DESKTOP], ['mobile', MOBILE]] as const) {
        await page.setViewportSize(size);
        await settled(page);
        await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${label}.png`), fullPage });
      }
      if (original) await page.setViewportSize(original);
      await settled(page);
    },
    async checkA11y(page, name) {
      const result = await new AxeBuilder({ page }).analyze();
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      const words = bad.map(
        (v) =>
          `- ${v.id} (${v.impact}): ${v.help}\n  ${v.helpUrl}\n` +
          v.nodes.map((n) => `    at ${n.target.join(' ')}: ${n.failureSummary?.replace(/\n\s*/g, '; ')}`).join('\n'),
      );
      assert.equal(bad.length, 0, `axe found ${bad.length} serious or critical violation(s) on ${name}:\n${words.join('\n')}`);
    },
    pageErrors: (page) => errors.get(page) ?? [],
    expectAnswers: (...answers) => void expected.push(...answers),
    checkPages,
    async close() {
      const leftOver = seen;
      seen = [];
      for (const c of contexts) await c.close().catch(() => {});
      await browser?.close();
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
      assert.deepEqual(leftOver, [], `unexpected errors on the dashboard's pages after the last check:\n${leftOver.join('\n')}`);
    },
  };
  return dashboard;
}
