// Starts a link worker thread: from the source tree, src/main.ts under tsx's loader; inside the single binary, the
// binary's own bundle (embedded as an asset) evaluated in the thread. Both branch on the worker data in main.ts.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { isSingleBinary, readAsset, sourceRoot } from '../../assets.js';
import type { LinkWorkerData } from './link-messages.js';

/** The asset key the build script embeds the bundle itself under (scripts/build-binary.ts). */
export const BUNDLE_ASSET_KEY = 'printfarm.cjs';

let bundleText: string | null = null;

export function spawnLinkWorker(data: LinkWorkerData): Worker {
  if (isSingleBinary()) {
    bundleText ??= readAsset(BUNDLE_ASSET_KEY)?.toString('utf8') ?? null;
    if (bundleText === null) throw new Error(`this binary has no embedded ${BUNDLE_ASSET_KEY} (a broken build): run with --workers 0`);
    return new Worker(bundleText, { eval: true, workerData: data, execArgv: [] });
  }
  const root = sourceRoot();
  // tsx's require hook, registered in the thread itself: on Node 20 a worker's --import hooks do not reach its entry.
  const api = path.join(root, 'node_modules', 'tsx', 'dist', 'cjs', 'api', 'index.cjs');
  const entry = path.join(root, 'src', 'main.ts');
  const boot = `require(${JSON.stringify(api)}).register(); require(${JSON.stringify(entry)});`;
  // Own flags, not the parent's: a test runner's or a profiler's flags mean nothing (or something wrong) in a thread.
  return new Worker(boot, { eval: true, workerData: data, execArgv: [] });
}

/** True in a thread started by spawnLinkWorker. */
export const isLinkWorkerData = (d: unknown): d is LinkWorkerData => (d as LinkWorkerData | null)?.role === 'printfarm-link-worker';
