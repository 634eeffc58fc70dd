// `npm run build:web [-- --json] [-- --quiet]`: builds the dashboard into web/dist and prints each file's raw, gzip and brotli size.
import path from 'node:path';
import { buildWeb, type WebBuildReport } from './web/build-web.js';

const kb = (bytes: number): string => `${(bytes / 1000).toFixed(1)} KB`;

function table(report: WebBuildReport): string {
  const rows = report.files.map((f) => [f.file + (f.first_load ? ' *' : ''), kb(f.raw), kb(f.gzip), kb(f.brotli)]);
  const head = ['file (* = first load)', 'raw', 'gzip', 'brotli'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const over = report.first_load_brotli_bytes > report.target_bytes;
  return [
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
    `first load (index.html + script + stylesheet): ${kb(report.first_load_brotli_bytes)} brotli, ${kb(report.first_load_gzip_bytes)} gzip; ` +
      `target ${kb(report.target_bytes)} compressed${over ? ' — OVER TARGET' : ''}`,
    `built into ${path.relative(process.cwd(), report.out_dir) || '.'} in ${report.millis} ms`,
  ].join('\n');
}

async function cli(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    console.log('Usage: npm run build:web [-- --json | --quiet]\nBundles web/src into web/dist (hashed names, .br and .gz beside each file).');
    return 0;
  }
  const report = await buildWeb();
  if (argv.includes('--quiet')) {
    console.log(`dashboard built into web/dist: first load ${kb(report.first_load_brotli_bytes)} brotli (target ${kb(report.target_bytes)})`);
    return 0;
  }
  console.log(table(report));
  if (argv.includes('--json')) {
    const { first_load_brotli_bytes, first_load_gzip_bytes, target_bytes, files } = report;
    console.log(JSON.stringify({ first_load_brotli_bytes, first_load_gzip_bytes, target_bytes, files }));
  }
  return 0;
}

cli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`build-web: ${(err as Error).message}`);
    process.exitCode = 1;
  },
);
