// Native addons inside the single binary: extracted from embedded assets to a per-version cache dir and loaded from there. From source: undefined.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isSingleBinary, readAsset } from './assets.js';
import { VERSION } from './version.js';

/** Asset keys the build script (scripts/build-binary.ts) embeds the compiled addons under. */
export const NATIVE_ASSET_KEYS = {
  betterSqlite: 'native/better_sqlite3.node',
  serialport: 'native/serialport.node',
} as const;

const extracted = new Map<string, string>();

/** Where extracted addons may live, best first: a dlopen needs a real file, and a read-only or odd HOME must not stop the start. */
function cacheRoots(): string[] {
  const roots: string[] = [];
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) roots.push(path.join(xdg, 'printfarm'));
  try {
    const home = os.homedir();
    if (home && path.isAbsolute(home)) roots.push(path.join(home, '.cache', 'printfarm'));
  } catch {
    // No passwd entry and no HOME (e.g. a bare container user): the temp dir below still works.
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  roots.push(path.join(os.tmpdir(), `printfarm-cache-${uid}`));
  return roots;
}

/** A private directory: in a shared temp dir someone else could have planted a symlink or a dir of their own. */
function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw new Error(`${dir} belongs to another user`);
}

/** Writes to a temp name and renames, so a crash or a second instance starting at once never sees half a library. */
function writeAtomically(file: string, bytes: Buffer): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // Already gone; the rename error is the one worth reporting.
    }
    throw err;
  }
}

/** The path of the embedded addon `key` on disk, extracting it on first use; undefined when not running as the single binary. */
export function extractNativeAddon(key: string): string | undefined {
  if (!isSingleBinary()) return undefined;
  const known = extracted.get(key);
  if (known) return known;
  const bytes = readAsset(key);
  if (!bytes) throw new Error(`this binary has no embedded native addon "${key}" (a broken build)`);
  // The content hash in the dir name means a file found there is exactly this build's addon.
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const name = path.basename(key);
  const failures: string[] = [];
  for (const root of cacheRoots()) {
    const dir = path.join(root, `${VERSION}-${hash}`);
    const file = path.join(dir, name);
    try {
      ensurePrivateDir(root);
      ensurePrivateDir(dir);
      let present = false;
      try {
        present = statSync(file).size === bytes.length;
      } catch {
        present = false;
      }
      if (!present) writeAtomically(file, bytes);
      extracted.set(key, file);
      return file;
    } catch (err) {
      failures.push(`${dir}: ${(err as Error).message}`);
    }
  }
  throw new Error(`cannot extract native addon ${name}; tried ${failures.join('; ')}`);
}

/** Path for better-sqlite3's `nativeBinding` option; undefined from source, where better-sqlite3 finds its own build. */
export function betterSqliteNativeBinding(): string | undefined {
  return extractNativeAddon(NATIVE_ASSET_KEYS.betterSqlite);
}

let serialportBinding: unknown;

/**
 * The serialport addon's exports. Inside the bundle this stands in for `node-gyp-build` (see scripts/binary/bundle.ts),
 * whose lookup of a package directory on disk cannot work in a single file.
 */
export function loadSerialportBinding(): unknown {
  if (serialportBinding === undefined) {
    const file = extractNativeAddon(NATIVE_ASSET_KEYS.serialport);
    if (!file) throw new Error('the embedded serialport addon is only available inside the single binary');
    const mod = { exports: {} as unknown };
    process.dlopen(mod, file);
    serialportBinding = mod.exports;
  }
  return serialportBinding;
}
