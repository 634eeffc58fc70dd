// `npx tsx scripts/measure-upload-memory.ts [MB]` (default 200): streams a generated multipart G-code upload through the real app and reports RSS growth and throughput.
// The upload goes through parseMultipartJobUpload into the content-addressed store, as the jobs route does; client and server share
// this process, and both stream, so the RSS growth bounds what the upload path holds in memory.
import { performance } from 'node:perf_hooks';
import { fileLimits } from '../src/files/file-limits.js';
import { createFilesService } from '../src/files/files.service.js';
import { parseMultipartJobUpload } from '../src/files/multipart-upload.js';
import { defineRoute } from '../src/http/route.js';
import { mintTestKey, startTestApp } from '../test/helpers/test-app.js';
import { closing, fieldPart, filePartHead, generatedGcode, postMultipart } from '../test/files/multipart-helpers.js';

const mb = Number(process.argv[2] ?? 200);
if (!Number.isFinite(mb) || mb <= 0) {
  console.error('usage: tsx scripts/measure-upload-memory.ts [size in MB, default 200]');
  process.exit(2);
}
const limits = fileLimits();

const uploadRoute = defineRoute({
  method: 'POST',
  path: '/v1/measure-upload',
  summary: 'measurement only',
  tag: 'Measure',
  auth: { scope: 'jobs:write' },
  responses: {},
  async handle(ctx, _input, deps) {
    const files = createFilesService(deps, limits);
    ctx.body = await parseMultipartJobUpload(ctx.req, limits, (s, n) => files.ingestStream(s, n, limits));
  },
});

const t = await startTestApp({ extraRoutes: [uploadRoute] });
const key = await mintTestKey(t, ['jobs:*']);
global.gc?.();
const baseRss = process.memoryUsage().rss;
let peakRss = baseRss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
const gen = generatedGcode(mb * 1024 * 1024);
const started = performance.now();
const res = await postMultipart(`${t.baseUrl}/v1/measure-upload`, key, [fieldPart('name', 'measure'), filePartHead('file', 'big.gcode'), gen.stream, '\r\n', closing]);
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
await t.close();
const file = res.body.file as { size: number; sha256: string; sent_lines_total: number } | undefined;
if (res.status !== 200 || !file || file.sha256 !== gen.digest()) {
  console.error('upload failed', res.status, JSON.stringify(res.body).slice(0, 300));
  process.exit(1);
}
const toMb = (b: number): string => (b / 1024 / 1024).toFixed(1);
console.log(
  JSON.stringify({
    file_mb: Number(toMb(file.size)),
    lines: file.sent_lines_total,
    seconds: Number(seconds.toFixed(1)),
    mb_per_s: Number((file.size / 1024 / 1024 / seconds).toFixed(1)),
    rss_base_mb: Number(toMb(baseRss)),
    rss_peak_mb: Number(toMb(peakRss)),
    rss_growth_mb: Number(toMb(peakRss - baseRss)),
  }),
);
