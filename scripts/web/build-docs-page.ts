// Writes the /docs page into web/dist: the bundled OpenAPI renderer (Redoc's standalone script) under a hashed name, and docs.html that loads it.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { WEB_ASSETS_DIR, WEB_DOCS_PAGE } from '../../src/web/web-dist.js';

/** What the web build reports of each file it wrote. */
export interface BuiltFile {
  file: string;
  raw: number;
  gzip: number;
  brotli: number;
  first_load: boolean;
}

/** The one outside address Redoc 2.5 loads by itself (its logo, unconditionally). */
const REDOC_LOGO_URL = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

type Write = (rel: string, bytes: Uint8Array) => Promise<BuiltFile>;

/**
 * The renderer reads the server's own document (/v1/openapi.json); the page names no other host, so it works offline.
 * Redoc's search, its sample panels (each with a Copy button) and its menu are on by default.
 */
export function docsPageHtml(script: string, a11yScript: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light">
  <title>printfarm API reference</title>
  <link rel="icon" href="/favicon.ico" sizes="32x32">
</head>
<body>
  <redoc spec-url="/v1/openapi.json" path-in-middle-panel="true" sort-tags-alphabetically="true"></redoc>
  <noscript>The API reference needs JavaScript; the same document is at /v1/openapi.json.</noscript>
  <script src="${script}"></script>
  <script src="${a11yScript}"></script>
</body>
</html>
`;
}

const hashOf = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('base64url').slice(0, 8).replace(/[-_]/g, 'x');

/** Copies the renderer from node_modules (skipping the compression when this very file was written before) and writes the page. */
export async function buildDocsPage(root: string, outDir: string, write: Write): Promise<BuiltFile[]> {
  const require = createRequire(import.meta.url);
  // The renderer's menu footer shows its maker's logo fetched from the internet; the page must load nothing from outside,
  // so that one address becomes an empty data: URL (the image then hides itself: it has an onError that removes it).
  const bundle = Buffer.from(readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8').replaceAll(REDOC_LOGO_URL, 'data:,'));
  const rel = `${WEB_ASSETS_DIR}/redoc-${hashOf(bundle)}.js`;
  const files: BuiltFile[] = [];
  // A hashed name holds one content: when it and its compressed twins exist, brotli at full quality need not run again.
  const done = ['', '.br', '.gz'].every((s) => existsSync(path.join(outDir, `${rel}${s}`)));
  const size = (suffix: string) => statSync(path.join(outDir, `${rel}${suffix}`)).size;
  files.push(done ? { file: rel, raw: size(''), gzip: size('.gz'), brotli: size('.br'), first_load: false } : await write(rel, bundle));
  const a11y = readFileSync(path.join(root, 'web', 'docs-a11y.js'));
  const a11yRel = `${WEB_ASSETS_DIR}/docs-a11y-${hashOf(a11y)}.js`;
  files.push(await write(a11yRel, a11y));
  files.push(await write(WEB_DOCS_PAGE, Buffer.from(docsPageHtml(`/${rel}`, `/${a11yRel}`))));
  return files;
}
