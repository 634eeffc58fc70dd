// GET /metrics on the real app: a farm of virtual printers printing, a queue, a spool and a webhook receiver, read
// through a strict exposition reader; who may scrape; and the Grafana dashboard asks only for families that exist.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { longJobSim, startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { createJob, longGcode, untilJob } from '../jobs/jobs-harness.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { startReceiver, type Receiver } from '../webhooks/webhook-harness.js';
import { parseExposition, samplesOf, valueOf, type Exposition } from './exposition-format.js';
import { ffmpegStream, type FfmpegCamera } from '../cameras/ffmpeg-camera.js';

const DASHBOARD = path.join(process.cwd(), 'docs/grafana/printfarm-dashboard.json');

async function scrape(app: PrintersApp): Promise<{ text: string; e: Exposition }> {
  const res = await app.t.request('/metrics', { headers: bearer(app.admin) });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  const text = await res.text();
  return { text, e: parseExposition(text) };
}

/** Every metric name a dashboard query reads. */
function dashboardMetricNames(): Set<string> {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Array<{ targets?: Array<{ expr: string }> }> };
  const names = new Set<string>();
  for (const panel of dashboard.panels) {
    for (const target of panel.targets ?? []) {
      for (const m of target.expr.matchAll(/\b((?:printfarm|nodejs|process)_[a-zA-Z0-9_]+)\b/g)) names.add(m[1]!);
    }
  }
  return names;
}

describe('GET /metrics on a printing farm', () => {
  let app: PrintersApp;
  let receiver: Receiver;
  let printers: string[];
  let spoolId: string;
  let e: Exposition;
  let text: string;
  let camera: FfmpegCamera;
  let cameraId: string;

  before(async () => {
    app = await startPrintersApp();
    // A camera watched once (a snapshot from its stream), so its counters have series.
    camera = await ffmpegStream();
    receiver = await startReceiver();
    const hook = await app.call('POST', '/v1/webhooks', { url: receiver.url, events: ['job.*'] });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const spool = await app.call('POST', '/v1/materials', { type: 'PETG', color: 'blue', spool_weight: 1000 });
    assert.equal(spool.status, 201, JSON.stringify(spool.body));
    spoolId = spool.body.id;
    printers = [];
    for (const name of ['m-one', 'm-two']) {
      const p = await app.create({ name, connection_url: longJobSim(`metrics-${name}`) });
      await app.untilStatus(p.id, 'idle');
      printers.push(p.id);
    }
    const cam = await app.call('POST', `/v1/printers/${printers[0]}/cameras`, { name: 'metrics cam', stream_url: camera.url });
    assert.equal(cam.status, 201, JSON.stringify(cam.body));
    cameraId = cam.body.id;
    assert.equal((await app.t.request(`/v1/cameras/${cameraId}/snapshot`, { headers: bearer(app.admin) })).status, 200);
    const jobs = [];
    for (let i = 0; i < 3; i++) jobs.push(await createJob(app, longGcode(3000), { name: `part ${i}` }));
    // Two printers take two jobs; the third waits in the queue.
    for (const job of jobs.slice(0, 2)) await untilJob(app, job.id, (j) => j.status === 'printing' && j.progress > 0, 'printing');
    await app.until('each job streamed for over a second', () =>
      printers.every((id) => (app.t.deps.sessions.get(id)?.snapshot().job?.elapsed_ms ?? 0) > 1200),
    );
    await app.until('a webhook delivery went out', () => receiver.received.length > 0 && app.t.deps.webhooks.worker.outcomes.delivered > 0);
    // The queued job was created at the app clock's now: 90 s later it has waited 90 s.
    app.t.clock.advance(90_000);
    assert.equal((await app.call('GET', `/v1/printers/${printers[0]}`)).status, 200);
    assert.equal((await app.call('GET', '/v1/jobs/job_doesnotexist00000000')).status, 404);
    assert.equal((await app.call('GET', '/v1/no/such/thing')).status, 404);
    ({ text, e } = await scrape(app));
  });
  after(async () => {
    camera?.stop();
    for (const id of printers ?? []) await app.call('POST', `/v1/printers/${id}/actions`, { action: 'cancel' });
    await receiver?.close();
    await app?.close();
  });

  it('parses as the Prometheus text format and has at least ten families of the farm plus the process defaults', () => {
    const farm = [...e.types.keys()].filter((n) => n.startsWith('printfarm_'));
    assert.ok(farm.length >= 10, farm.join(', '));
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      assert.ok(e.types.has(name), `default family ${name}`);
    }
  });

  it('counts printers and jobs by status, the queue and how long it waited', () => {
    assert.equal(valueOf(e, 'printfarm_printers', { status: 'printing' }), 2);
    assert.equal(valueOf(e, 'printfarm_printers', { status: 'idle' }), 0);
    assert.equal(valueOf(e, 'printfarm_printers', { status: 'offline' }), 0);
    assert.equal(valueOf(e, 'printfarm_jobs', { status: 'printing' }), 2);
    assert.equal(valueOf(e, 'printfarm_jobs', { status: 'queued' }), 1);
    assert.equal(valueOf(e, 'printfarm_jobs', { status: 'completed' }), 0);
    assert.equal(valueOf(e, 'printfarm_queue_length'), 1);
    assert.equal(valueOf(e, 'printfarm_queue_oldest_wait_seconds'), 90);
    for (const id of printers) assert.equal(valueOf(e, 'printfarm_printer_info', { printer_id: id, kind: 'serial' }), 1);
  });

  it('reports each streaming printer: lines sent, resends, timeouts, the rate, progress, temperatures', () => {
    for (const id of printers) {
      const sent = valueOf(e, 'printfarm_printer_lines_sent_total', { printer_id: id });
      const stats = app.t.deps.sessions.get(id)!.stats()!;
      // Read after the scrape: the session went on sending.
      assert.ok(sent > 10 && sent <= stats.linesSent, `lines sent ${sent} (now ${stats.linesSent})`);
      assert.equal(valueOf(e, 'printfarm_printer_resends_total', { printer_id: id }), 0);
      assert.equal(valueOf(e, 'printfarm_printer_timeouts_total', { printer_id: id }), 0);
      const rate = valueOf(e, 'printfarm_printer_stream_lines_per_second', { printer_id: id });
      assert.ok(rate > 1 && rate < 100_000, `rate ${rate}`);
      const progress = valueOf(e, 'printfarm_printer_job_progress_percent', { printer_id: id });
      assert.ok(progress > 0 && progress < 100, `progress ${progress}`);
      const hotend = valueOf(e, 'printfarm_printer_temperature_celsius', { printer_id: id, heater: 'hotend' });
      const bed = valueOf(e, 'printfarm_printer_temperature_celsius', { printer_id: id, heater: 'bed' });
      assert.ok(hotend > 0 && hotend < 400 && bed > 0 && bed < 150, `hotend ${hotend}, bed ${bed}`);
      assert.ok(valueOf(e, 'printfarm_printer_temperature_target_celsius', { printer_id: id, heater: 'hotend' }) >= 0);
    }
  });

  it('reports spools, webhook deliveries and the pending outbox, free storage, the version', () => {
    assert.equal(valueOf(e, 'printfarm_spool_remaining_grams', { material_id: spoolId, type: 'PETG', color: 'blue' }), 1000);
    assert.ok(valueOf(e, 'printfarm_webhook_deliveries_total', { outcome: 'delivered' }) >= 1);
    assert.equal(valueOf(e, 'printfarm_webhook_deliveries_total', { outcome: 'failed' }), 0);
    assert.ok(valueOf(e, 'printfarm_webhook_outbox_pending') >= 0);
    const free = valueOf(e, 'printfarm_storage_free_bytes');
    assert.ok(free > 0 && free <= valueOf(e, 'printfarm_storage_size_bytes'));
    assert.equal(samplesOf(e, 'printfarm_build_info').length, 1);
  });

  it("reports each watched camera's frames in and out, drops, viewers and restarts", () => {
    const labels = { camera_id: cameraId, printer_id: printers[0]! };
    assert.ok(valueOf(e, 'printfarm_camera_frames_in_total', labels) >= 1);
    assert.equal(valueOf(e, 'printfarm_camera_frames_out_total', labels), 0, 'a snapshot is no live viewer');
    assert.equal(valueOf(e, 'printfarm_camera_frames_dropped_total', labels), 0);
    assert.equal(valueOf(e, 'printfarm_camera_restarts_total', labels), 0);
    assert.ok(samplesOf(e, 'printfarm_camera_viewers').some((s) => s.labels.camera_id === cameraId));
  });

  it('times requests by the matched route pattern, never the raw path', () => {
    const count = valueOf(e, 'printfarm_http_request_duration_seconds_count', { method: 'GET', route: '/v1/printers/:id', code: '200' });
    assert.ok(count >= 1);
    assert.ok(valueOf(e, 'printfarm_http_request_duration_seconds_count', { method: 'POST', route: '/v1/jobs', code: '201' }) >= 3);
    assert.equal(valueOf(e, 'printfarm_http_request_duration_seconds_count', { method: 'GET', route: '/v1/jobs/:id', code: '404' }), 1);
    assert.equal(valueOf(e, 'printfarm_http_request_duration_seconds_count', { method: 'GET', route: '(other)', code: '404' }), 1);
    const routes = new Set(samplesOf(e, 'printfarm_http_request_duration_seconds_count').map((s) => s.labels.route));
    for (const route of routes) assert.doesNotMatch(route!, /prt_|job_|mat_|wh_|such/, `route label ${route}`);
  });

  it('every metric the Grafana dashboard queries is in the output, and every family of the farm has a panel', () => {
    const sampled = new Set(e.samples.map((s) => s.name));
    const queried = dashboardMetricNames();
    assert.ok(queried.size >= 10);
    for (const name of queried) assert.ok(sampled.has(name), `the dashboard queries ${name}, which /metrics does not have`);
    const families = [...e.types.keys()].filter((n) => n.startsWith('printfarm_'));
    for (const family of families) {
      const covered = [...queried].some((q) => q === family || q.startsWith(`${family}_`));
      assert.ok(covered, `no dashboard panel shows ${family}`);
    }
    assert.ok(text.length > 0);
  });
});

describe('who may scrape GET /metrics', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('401 without a key, 403 naming the scope for a key without it, 200 with metrics:read, metrics:* or admin', async () => {
    const none = await t.request('/metrics');
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer');
    assert.equal(((await none.json()) as { error: { code: string } }).error.code, 'invalid_api_key');

    const wrong = await t.request('/metrics', { headers: bearer('svc_live_' + 'x'.repeat(40)) });
    assert.equal(wrong.status, 401);

    const reader = await mintTestKey(t, ['printers:read', 'analytics:read']);
    const denied = await t.request('/metrics', { headers: bearer(reader) });
    assert.equal(denied.status, 403);
    const body = (await denied.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'insufficient_permissions');
    assert.equal(body.error.message, 'missing scope: metrics:read');

    for (const scopes of [['metrics:read'], ['metrics:*'], ['admin:*']]) {
      const res = await t.request('/metrics', { headers: bearer(await mintTestKey(t, scopes)) });
      assert.equal(res.status, 200, scopes.join());
      const e = parseExposition(await res.text());
      assert.equal(valueOf(e, 'printfarm_queue_length'), 0);
    }
  });

  it('is outside the hourly request budget: a free plan (100 an hour) is scraped 120 times', async () => {
    const admin = await mintTestKey(t);
    const patched = await t.request('/v1/organization', { method: 'PATCH', headers: bearer(admin, true), body: JSON.stringify({ plan: 'free' }) });
    assert.equal(patched.status, 200);
    const key = await mintTestKey(t, ['metrics:read']);
    for (let i = 0; i < 120; i++) {
      const res = await t.request('/metrics', { headers: bearer(key) });
      assert.equal(res.status, 200, `scrape ${i + 1}`);
      assert.equal(res.headers.get('x-ratelimit-limit'), null);
      await res.text();
    }
  });
});
