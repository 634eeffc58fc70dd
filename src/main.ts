// Process entry of `printfarm` (source tree via tsx, and the single binary's bundle): run the CLI, set the exit status.
// The same entry runs the printer link workers (--workers): a thread started with link worker data hosts sessions.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { main } from './cli/run-cli.js';
import { isLinkWorkerData } from './printers/workers/link-worker-entry.js';
import { runLinkWorker } from './printers/workers/link-worker.js';

if (!isMainThread && parentPort && isLinkWorkerData(workerData)) {
  runLinkWorker(parentPort, workerData);
} else {
  main(process.argv.slice(2)).then(
    (code) => {
      if (code !== 0) process.exitCode = code;
    },
    (err: unknown) => {
      console.error(`printfarm: ${(err as Error).stack ?? String(err)}`);
      process.exitCode = 1;
    },
  );
}
