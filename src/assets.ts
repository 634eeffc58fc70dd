// Files shipped with the program (web/, firmware-profiles/): embedded assets inside the single binary, the source tree otherwise.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

type SeaModule = { isSea(): boolean; getAsset(key: string): ArrayBuffer };

let sea: SeaModule | null | undefined;

function seaModule(): SeaModule | null {
  if (sea === undefined) {
    try {
      // node:sea exists from Node 20.12; outside a single executable isSea() is false.
      const mod = process.getBuiltinModule?.('node:sea') as SeaModule | undefined;
      sea = mod && mod.isSea() ? mod : null;
    } catch {
      sea = null;
    }
  }
  return sea;
}

/** The repository root when running from source (src/ sits directly below it). */
export function sourceRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
}

/** True inside the single executable built by scripts/build-binary.ts. */
export const isSingleBinary = (): boolean => seaModule() !== null;

/** The bytes of a shipped file, by its path relative to the repository root ("web/index.html"); undefined if absent. */
export function readAsset(relPath: string): Buffer | undefined {
  const key = relPath.replace(/^\/+/, '');
  if (key.split('/').includes('..')) return undefined;
  const s = seaModule();
  if (s) {
    try {
      return Buffer.from(s.getAsset(key));
    } catch {
      return undefined;
    }
  }
  try {
    return readFileSync(path.join(sourceRoot(), key));
  } catch {
    return undefined;
  }
}
