// Turns the bundle plus embedded files into a single executable: SEA blob from Node's own generator, injected with postject.
import { chmodSync, copyFileSync, existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ARCH_INFO, CACHE_DIR, REPO_ROOT, SEA_FUSE, type Arch } from './targets.js';
import { run } from './run.js';

/** Every shipped file under the given top-level dirs, keyed by its repository-relative path (what readAsset() asks for). */
export function collectAssets(dirs: string[]): Record<string, string> {
  const assets: Record<string, string> = {};
  const walk = (rel: string): void => {
    const abs = path.join(REPO_ROOT, rel);
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const childRel = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(childRel);
      else if (entry.isFile()) assets[childRel] = path.join(REPO_ROOT, childRel);
    }
  };
  for (const dir of dirs) {
    if (existsSync(path.join(REPO_ROOT, dir))) walk(dir);
  }
  return assets;
}

export interface SeaInputs {
  arch: Arch;
  workDir: string;
  bundleFile: string;
  assets: Record<string, string>;
  /** The Node binary that generates the blob: the target's own for x64, the x64 one of the same version for arm64. */
  generatorNode: string;
  /** The Node binary that becomes the executable. */
  targetNode: string;
  outFile: string;
}

export async function buildSea(inputs: SeaInputs): Promise<void> {
  const { arch, workDir } = inputs;
  const native = ARCH_INFO[arch].cross === undefined;
  const configFile = path.join(workDir, 'sea-config.json');
  const blob = path.join(workDir, 'sea-prep.blob');
  writeFileSync(
    configFile,
    JSON.stringify(
      {
        main: inputs.bundleFile,
        output: blob,
        disableExperimentalSEAWarning: true,
        useSnapshot: false,
        // V8's code cache is machine code for the generating binary's CPU: only a blob made by the target itself may carry it.
        useCodeCache: native,
        assets: inputs.assets,
      },
      null,
      2,
    ),
  );
  await run(inputs.generatorNode, ['--experimental-sea-config', configFile], { cwd: workDir, logFile: path.join(CACHE_DIR, 'logs', `sea-${arch}.log`) });

  const tmp = `${inputs.outFile}.${process.pid}.tmp`;
  try {
    await inject(inputs, tmp, blob, native);
    renameSync(tmp, inputs.outFile);
  } finally {
    rmSync(tmp, { force: true });
  }
}

async function inject(inputs: SeaInputs, tmp: string, blob: string, native: boolean): Promise<void> {
  const { arch } = inputs;
  copyFileSync(inputs.targetNode, tmp);
  chmodSync(tmp, 0o755);
  // The symbol table and debug info are about 18 MB of the Node binary that nothing at run time needs (addons link
  // against .dynsym, which strip keeps). It must happen before injection: strip would drop postject's note segment.
  await run(native ? 'strip' : ARCH_INFO[arch].cross!.strip, ['--strip-all', tmp]);
  const postject = path.join(REPO_ROOT, 'node_modules', 'postject', 'dist', 'cli.js');
  await run(process.execPath, [postject, tmp, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE], {
    logFile: path.join(CACHE_DIR, 'logs', `postject-${arch}.log`),
  });
  chmodSync(tmp, 0o755);
}

export const fileSizeMiB = (file: string): string => (statSync(file).size / 1024 / 1024).toFixed(1);
