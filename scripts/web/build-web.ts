// buildWeb(): bundles the dashboard (web/src) with esbuild into web/dist with content-hashed names, writes index.html, precompresses.
import { readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import * as esbuild from 'esbuild';
import { buildDocsPage } from './build-docs-page.js';
import { WEB_ASSETS_DIR, WEB_DIST } from '../../src/web/web-dist.js';

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

/** The budget for the first page load: index.html, the script and the stylesheet, compressed. */
export const FIRST_LOAD_TARGET_BYTES = 200_000;

/** The template's line that becomes the hashed <link> and <script> tags. */
const ASSETS_MARKER = '<!-- build-web: assets -->';

/** Formats that are already compressed: storing a .br/.gz beside them saves nothing. */
const PRECOMPRESSED = new Set(['.png', '.jpg', '.jpeg', '.webp', '.woff2', '.gz', '.br']);

export interface WebFileReport {
  /** Path inside web/dist ("assets/app-4KXQ2.js"). */
  file: string;
  raw: number;
  /** Size of the .gz / .br beside it (the raw size when none is stored). */
  gzip: number;
  brotli: number;
  /** Part of the first page load (index.html, the entry script and its stylesheet). */
  first_load: boolean;
}

export interface WebBuildReport {
  /** Absolute path of the output directory. */
  out_dir: string;
  /** The entry files by kind, as index.html links them ("/assets/app-….js"). */
  script: string;
  stylesheet: string | null;
  files: WebFileReport[];
  first_load_brotli_bytes: number;
  first_load_gzip_bytes: number;
  target_bytes: number;
  millis: number;
}

export interface BuildWebOptions {
  /** Repository root (the one this script sits in by default). */
  root?: string;
  /** Output directory; `<root>/web/dist` by default. */
  outDir?: string;
}

/**
 * Writes through a temporary name and a rename, so a server (or a second build running at the same moment, as
 * parallel test files do) never reads half a file. Equal inputs give equal names, so concurrent builds agree.
 */
function writeAtomic(file: string, bytes: Uint8Array): void {
  // Unchanged files keep their mtime, so tools that rebuild on newer inputs (the binary test) see no change.
  try {
    if (Buffer.from(bytes).equals(readFileSync(file))) return;
  } catch {
    // Not there yet.
  }
  const tmp = path.join(path.dirname(file), `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}-${path.basename(file)}`);
  try {
    writeFileSync(tmp, bytes);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

async function writeWithCompressed(outDir: string, rel: string, bytes: Uint8Array, firstLoad: boolean): Promise<WebFileReport> {
  const file = path.join(outDir, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeAtomic(file, bytes);
  if (PRECOMPRESSED.has(path.extname(rel))) return { file: rel, raw: bytes.length, gzip: bytes.length, brotli: bytes.length, first_load: firstLoad };
  const [gz, br] = await Promise.all([
    gzip(bytes, { level: 9 }),
    brotli(bytes, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
  ]);
  writeAtomic(`${file}.gz`, gz);
  writeAtomic(`${file}.br`, br);
  return { file: rel, raw: bytes.length, gzip: gz.length, brotli: br.length, first_load: firstLoad };
}

/** Removes hashed files of earlier builds (and their .gz/.br) that this build did not produce. */
function sweepStale(dir: string, keep: Set<string>): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const base = name.replace(/\.(br|gz)$/, '');
    // Temporary files belong to a build that may be running right now.
    if (name.startsWith('.tmp-') || keep.has(base)) continue;
    if (statSync(path.join(dir, name)).isFile()) unlinkSync(path.join(dir, name));
  }
}

/** Bundles web/src/main.ts (and the CSS it imports) minified into web/dist; returns what was written and its sizes. */
export async function buildWeb(options: BuildWebOptions = {}): Promise<WebBuildReport> {
  const started = performance.now();
  const root = options.root ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const outDir = options.outDir ?? path.join(root, WEB_DIST);
  const assetsDir = path.join(outDir, WEB_ASSETS_DIR);

  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { app: 'web/src/main.ts' },
    outdir: assetsDir,
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    // Browsers of the last few years (the farm's tablets and wall TVs included); no polyfills are bundled.
    target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
    loader: { '.svg': 'file', '.png': 'file', '.woff2': 'file' },
    legalComments: 'none',
    charset: 'utf8',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });

  // The entry script, its stylesheet and any chunk it imports statically are what the first load fetches.
  const outputs = result.metafile.outputs;
  const entryKey = Object.keys(outputs).find((k) => outputs[k]!.entryPoint === 'web/src/main.ts' && k.endsWith('.js'));
  if (!entryKey) throw new Error('esbuild produced no script for web/src/main.ts');
  const firstLoad = new Set<string>([entryKey]);
  const cssKey = outputs[entryKey]!.cssBundle;
  if (cssKey) firstLoad.add(cssKey);
  for (const imp of outputs[entryKey]!.imports) if (imp.kind === 'import-statement' && !imp.external) firstLoad.add(imp.path);

  const relOf = (abs: string) => path.relative(outDir, abs).split(path.sep).join('/');
  const keyOf = (abs: string) => path.relative(root, abs).split(path.sep).join('/');
  const files: WebFileReport[] = [];
  for (const out of result.outputFiles) {
    files.push(await writeWithCompressed(outDir, relOf(out.path), out.contents, firstLoad.has(keyOf(out.path))));
  }

  const script = `/${relOf(path.join(root, entryKey))}`;
  const stylesheet = cssKey ? `/${relOf(path.join(root, cssKey))}` : null;
  const template = readFileSync(path.join(root, 'web', 'index.html'), 'utf8');
  if (!template.includes(ASSETS_MARKER)) throw new Error(`web/index.html lacks the line ${ASSETS_MARKER}`);
  const tags = [
    stylesheet ? `<link rel="stylesheet" href="${stylesheet}">` : '',
    `<script type="module" src="${script}"></script>`,
  ].filter(Boolean);
  const indent = /^([ \t]*)<!-- build-web: assets -->/m.exec(template)?.[1] ?? '';
  // The template's comments are notes for developers, not for every page load.
  const page = template.replace(ASSETS_MARKER, tags.join(`\n${indent}`)).replace(/[ \t]*<!--[\s\S]*?-->\n?/g, '');
  files.unshift(await writeWithCompressed(outDir, 'index.html', Buffer.from(page), true));
  files.push(await writeWithCompressed(outDir, 'favicon.ico', readFileSync(path.join(root, 'web', 'favicon.ico')), false));

  // The API reference page (/docs) ships in the same folder, so the binary embeds it like the dashboard.
  for (const f of await buildDocsPage(root, outDir, (rel, bytes) => writeWithCompressed(outDir, rel, bytes, false))) {
    files.push(f);
  }

  sweepStale(assetsDir, new Set(files.map((f) => path.basename(f.file))));

  const first = files.filter((f) => f.first_load);
  return {
    out_dir: outDir,
    script,
    stylesheet,
    files,
    first_load_brotli_bytes: first.reduce((n, f) => n + f.brotli, 0),
    first_load_gzip_bytes: first.reduce((n, f) => n + f.gzip, 0),
    target_bytes: FIRST_LOAD_TARGET_BYTES,
    millis: Math.round(performance.now() - started),
  };
}
