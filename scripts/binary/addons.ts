// The native addons for one architecture: better-sqlite3 compiled against the embedded Node's headers (cached), serialport's glibc prebuild.
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readSync, closeSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ARCH_INFO, CACHE_DIR, REPO_ROOT, type Arch } from './targets.js';
import type { NodeDist } from './node-dist.js';
import { run } from './run.js';

export interface Addons {
  betterSqlite: string;
  serialport: string;
}

/** Fails early when a toolchain mix-up produced a library for the wrong machine (it would only fail at dlopen on the Pi). */
export function assertElfMachine(file: string, arch: Arch): void {
  const header = Buffer.alloc(20);
  const fd = openSync(file, 'r');
  try {
    readSync(fd, header, 0, 20, 0);
  } finally {
    closeSync(fd);
  }
  if (header.readUInt32BE(0) !== 0x7f454c46) throw new Error(`${file} is not an ELF file`);
  const machine = header.readUInt16LE(18);
  if (machine !== ARCH_INFO[arch].elfMachine) {
    throw new Error(`${file} is built for ELF machine ${machine}, not ${arch} (${ARCH_INFO[arch].elfMachine})`);
  }
}

/** npm's own bundled node-gyp: always present where npm is, so the build needs no extra package. */
export function findNodeGyp(): string {
  const candidates: string[] = [];
  if (process.env.PRINTFARM_NODE_GYP) candidates.push(process.env.PRINTFARM_NODE_GYP);
  const npmCli = process.env.npm_execpath;
  if (npmCli && /npm-cli\.js$/.test(npmCli)) candidates.push(path.join(path.dirname(npmCli), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const npm = path.join(dir, 'npm');
    if (!dir || !existsSync(npm)) continue;
    const real = realpathSync(npm);
    candidates.push(path.join(path.dirname(real), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  }
  candidates.push(path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`node-gyp not found (looked at ${candidates.join(', ')}); set PRINTFARM_NODE_GYP to node-gyp.js`);
  return found;
}

function packageVersion(dir: string): string {
  return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Environment for node-gyp: this machine's npm config points nodedir at Node 20's headers, so it is set explicitly. */
function gypEnv(arch: Arch, node: NodeDist): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // Settings inherited from an outer `npm run` (arch, target, runtime…) would override the flags below.
    if (!/^npm_config_/i.test(k)) env[k] = v;
  }
  env.npm_config_nodedir = node.dir;
  env.npm_config_arch = ARCH_INFO[arch].gypArch;
  const cross = ARCH_INFO[arch].cross;
  if (cross) {
    Object.assign(env, { CC: cross.CC, CXX: cross.CXX, LINK: cross.LINK, AR: cross.AR, CC_host: 'gcc', CXX_host: 'g++', LINK_host: 'g++', AR_host: 'ar' });
  }
  return env;
}

export async function buildBetterSqlite(arch: Arch, node: NodeDist, log: (line: string) => void): Promise<string> {
  const source = path.join(REPO_ROOT, 'node_modules', 'better-sqlite3');
  const key = `better-sqlite3-${packageVersion(source)}-node${node.version}-linux-${arch}`;
  const cached = path.join(CACHE_DIR, 'addons', key, 'better_sqlite3.node');
  if (existsSync(cached)) {
    log(`better-sqlite3: cached ${path.relative(REPO_ROOT, cached)}`);
    return cached;
  }
  const cross = ARCH_INFO[arch].cross;
  if (cross) {
    for (const tool of [cross.CC, cross.CXX]) {
      await run('sh', ['-c', `command -v ${tool}`]).catch(() => {
        throw new Error(`${tool} is missing: install Debian's g++-aarch64-linux-gnu to cross-compile better-sqlite3 for ${arch}`);
      });
    }
  }
  mkdirSync(path.join(CACHE_DIR, 'work'), { recursive: true });
  const work = mkdtempSync(path.join(CACHE_DIR, 'work', `${key}-`));
  try {
    // A copy, so the source tree's own build (used by tests under Node 20) is left untouched.
    cpSync(source, work, { recursive: true, filter: (src) => !/[/\\](build|node_modules)$/.test(src) });
    const started = Date.now();
    log(`better-sqlite3: compiling for Node ${node.version} linux-${arch}${cross ? ' (cross)' : ''}, a couple of minutes…`);
    await run(
      process.execPath,
      [findNodeGyp(), 'rebuild', '--release', `--arch=${ARCH_INFO[arch].gypArch}`, `--nodedir=${node.dir}`, '-j', String(Math.max(1, os.availableParallelism()))],
      { cwd: work, env: gypEnv(arch, node), logFile: path.join(CACHE_DIR, 'logs', `${key}.log`) },
    );
    const built = path.join(work, 'build', 'Release', 'better_sqlite3.node');
    assertElfMachine(built, arch);
    mkdirSync(path.dirname(cached), { recursive: true });
    copyFileSync(built, `${cached}.tmp`);
    renameSync(`${cached}.tmp`, cached);
    log(`better-sqlite3: compiled in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    return cached;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function serialportPrebuild(arch: Arch): string {
  const file = path.join(REPO_ROOT, 'node_modules', '@serialport', 'bindings-cpp', ARCH_INFO[arch].serialportPrebuild);
  if (!existsSync(file)) throw new Error(`serialport ships no prebuild at ${file}`);
  assertElfMachine(file, arch);
  return file;
}

export async function prepareAddons(arch: Arch, node: NodeDist, log: (line: string) => void): Promise<Addons> {
  return { betterSqlite: await buildBetterSqlite(arch, node, log), serialport: serialportPrebuild(arch) };
}
