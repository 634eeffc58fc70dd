// Process entry of `printfarm` (source tree via tsx, and the single binary's bundle): run the CLI, set the exit status.
import { main } from './cli/run-cli.js';

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`printfarm: ${(err as Error).stack ?? String(err)}`);
    process.exitCode = 1;
  },
);
