// `npm run build:binary [-- --arch x64|arm64|all]`: builds dist/printfarm-linux-<arch>, one executable with Node, the app, its addons and files.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fetchNode } from './binary/node-dist.js';
import { prepareAddons, type Addons } from './binary/addons.js';
import { bundle } from './binary/bundle.js';
import { buildSea, collectAssets, fileSizeMiB } from './binary/sea.js';
import { ARCHES, CACHE_DIR, DIST_DIR, NODE_VERSION, REPO_ROOT, binaryName, type Arch, ADDON_HEADERS_VERSION } from './binary/targets.js';
import { buildWeb } from './web/build-web.js';
import { NATIVE_ASSET_KEYS } from '../src/native-addons.js';
import { BUNDLE_ASSET_KEY } from '../src/printers/workers/link-worker-entry.js';
import { WEB_DIST } from '../src/web/web-dist.js';

/** The built dashboard (not its sources) and the firmware profiles; keys are repository-relative paths, as readAsset() asks. */
const EMBEDDED_DIRS = [WEB_DIST, 'firmware-profiles'];

function log(line: string): void {
  console.log(`[build-binary] ${line}`);
}

async function buildBinary(arch: Arch): Promise<string> {
  const started = Date.now();
  const target = await fetchNode(arch);
  // The blob generator must run here, so it is always the x64 binary of the very same Node version.
  const generator = arch === 'x64' ? target : await fetchNode('x64');
  log(`${arch}: Node ${target.version} from ${path.relative(REPO_ROOT, target.dir)}`);

  // better-sqlite3 is compiled against older 24.x headers: see ADDON_HEADERS_VERSION for why.
  const headers = await fetchNode('x64', ADDON_HEADERS_VERSION);
  const addons = await prepareAddons(arch, headers, log);
  // A fresh dir per build, so a test and a manual build running at once do not trample each other's blob.
  mkdirSync(CACHE_DIR, { recursive: true });
  const workDir = mkdtempSync(path.join(CACHE_DIR, `sea-${arch}-`));
  try {
    return await assemble(arch, workDir, target.binary, generator.binary, addons, started);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

async function assemble(arch: Arch, workDir: string, targetNode: string, generatorNode: string, addons: Addons, started: number): Promise<string> {
  const bundled = await bundle(path.join(workDir, 'printfarm.cjs'));
  for (const w of bundled.warnings) log(`esbuild warning: ${w}`);

  // A fresh dashboard build, so the binary never ships a stale or missing web/dist.
  const web = await buildWeb();
  log(`dashboard: ${web.files.length} files, first load ${(web.first_load_brotli_bytes / 1000).toFixed(1)} KB brotli`);
  const assets = collectAssets(EMBEDDED_DIRS);
  const fileCount = Object.keys(assets).length;
  assets[NATIVE_ASSET_KEYS.betterSqlite] = addons.betterSqlite;
  assets[NATIVE_ASSET_KEYS.serialport] = addons.serialport;
  // The bundle itself once more, as an asset: a printer worker thread (--workers) evaluates it (src/printers/workers).
  assets[BUNDLE_ASSET_KEY] = bundled.file;

  mkdirSync(DIST_DIR, { recursive: true });
  const outFile = path.join(DIST_DIR, binaryName(arch));
  await buildSea({ arch, workDir, bundleFile: bundled.file, assets, generatorNode, targetNode, outFile });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  log(`${arch}: ${path.relative(REPO_ROOT, outFile)} ${fileSizeMiB(outFile)} MiB (${fileCount} embedded files + 2 addons + the bundle for worker threads), built in ${seconds} s`);
  return outFile;
}

async function cli(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { arch: { type: 'string', default: 'x64' }, help: { type: 'boolean' } } });
  if (values.help) {
    console.log('Usage: npm run build:binary -- [--arch x64|arm64|all]\nBuilds dist/printfarm-linux-<arch> around Node ' + NODE_VERSION + '; caches downloads and addons in .build/.');
    return 0;
  }
  const arches: Arch[] = values.arch === 'all' ? [...ARCHES] : ARCHES.includes(values.arch as Arch) ? [values.arch as Arch] : [];
  if (arches.length === 0) {
    console.error(`build-binary: unknown --arch "${values.arch}" (expected x64, arm64 or all)`);
    return 2;
  }
  for (const arch of arches) await buildBinary(arch);
  return 0;
}

cli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`build-binary: ${(err as Error).message}`);
    process.exitCode = 1;
  },
);
