// `npm run build:deb [-- --arch x64|arm64|all]`: dist/printfarm_<version>_<amd64|arm64>.deb around dist/printfarm-linux-<arch>
// (built first with build:binary when missing, or always with --rebuild).
import { existsSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildDeb } from './deb/deb-package.js';
import { ARCHES, DIST_DIR, binaryName, type Arch } from './binary/targets.js';
import { VERSION } from '../src/version.js';

function cli(argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: { arch: { type: 'string', default: 'all' }, rebuild: { type: 'boolean' } } });
  const arches: Arch[] = values.arch === 'all' ? [...ARCHES] : ARCHES.includes(values.arch as Arch) ? [values.arch as Arch] : [];
  if (arches.length === 0) {
    console.error(`build-deb: unknown --arch "${values.arch}" (expected x64, arm64 or all)`);
    return 2;
  }
  for (const arch of arches) {
    const binary = path.join(DIST_DIR, binaryName(arch));
    if (values.rebuild || !existsSync(binary)) {
      console.log(`[build-deb] ${arch}: building ${path.relative(process.cwd(), binary)} first`);
      const r = spawnSync('npm', ['run', '--silent', 'build:binary', '--', '--arch', arch], { stdio: 'inherit' });
      if (r.status !== 0) return 1;
    }
    const deb = buildDeb({ binary, arch, version: VERSION, outDir: DIST_DIR });
    console.log(`[build-deb] ${path.relative(process.cwd(), deb)} ${(statSync(deb).size / 1024 / 1024).toFixed(1)} MiB`);
  }
  return 0;
}

try {
  process.exitCode = cli(process.argv.slice(2));
} catch (err) {
  console.error(`build-deb: ${(err as Error).message}`);
  process.exitCode = 1;
}
