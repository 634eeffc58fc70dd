// Bundles src/main.ts and its dependencies into one CommonJS file for Node's single-executable support.
import path from 'node:path';
import * as esbuild from 'esbuild';
import { NODE_VERSION, REPO_ROOT } from './targets.js';

/**
 * The main script of a single executable gets a require() that only loads built-in modules; better-sqlite3 needs a real
 * one to load its addon from the extracted path. `var` may redeclare the wrapper's `require` parameter, and the
 * right-hand side still sees the parameter.
 */
const BANNER = `var require = require('node:module').createRequire(process.execPath);`;

/** Files whose `import.meta` use is only reached from the source tree, never inside the binary. */
const IMPORT_META_ALLOWED = new Set(['src/assets.ts']);

/**
 * @serialport/bindings-cpp finds its addon with node-gyp-build(packageDir), a directory search that a single file
 * cannot satisfy. Its import is answered with a module returning the addon extracted by src/native-addons.ts.
 */
const nodeGypBuildShim: esbuild.Plugin = {
  name: 'printfarm-node-gyp-build-shim',
  setup(build) {
    build.onResolve({ filter: /^node-gyp-build$/ }, (args) => {
      if (!args.importer.includes(`${path.sep}@serialport${path.sep}bindings-cpp${path.sep}`)) {
        return { errors: [{ text: `node-gyp-build imported by ${args.importer}: only serialport's addon is embedded; add this addon to scripts/binary` }] };
      }
      return { path: 'node-gyp-build', namespace: 'printfarm-native' };
    });
    build.onLoad({ filter: /.*/, namespace: 'printfarm-native' }, () => ({
      contents: [
        "import { loadSerialportBinding } from './src/native-addons.ts';",
        'export default function nodeGypBuild(_dir: string): unknown { return loadSerialportBinding(); }',
      ].join('\n'),
      resolveDir: REPO_ROOT,
      loader: 'ts',
    }));
  },
};

export interface BundleResult {
  file: string;
  warnings: string[];
}

export async function bundle(outfile: string): Promise<BundleResult> {
  const result = await esbuild.build({
    absWorkingDir: REPO_ROOT,
    entryPoints: ['src/main.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${NODE_VERSION.split('.')[0]}`,
    banner: { js: BANNER },
    plugins: [nodeGypBuildShim],
    // Whitespace and syntax only: start-up parses a third less, while identifiers (and so stack traces in farm
    // owners' bug reports) stay readable without keepNames' run-time cost.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'eof',
    logLevel: 'silent',
  });
  const warnings: string[] = [];
  for (const w of result.warnings) {
    const file = w.location?.file ?? '';
    const where = w.location ? `${file}:${w.location.line}` : '(no location)';
    if (w.id === 'empty-import-meta' && IMPORT_META_ALLOWED.has(file)) continue;
    if (w.id === 'empty-import-meta' && file.startsWith('src/')) {
      throw new Error(`${where}: import.meta is empty inside the binary; use readAsset() or static imports instead (team rule)`);
    }
    warnings.push(`${where}: ${w.text}`);
  }
  return { file: outfile, warnings };
}
