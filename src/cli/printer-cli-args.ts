// Flag parsing shared by `printfarm stream` and `printfarm console`: --url, --profile and positional arguments.
import { CliUsageError } from './command.js';

export interface PrinterCliArgs {
  url: string;
  profile: string | undefined;
  positional: string[];
}

/** Accepts `--url X`, `--url=X`, `--profile X`, `--profile=X`; anything else starting with `-` is a usage error. */
export function parsePrinterArgs(args: string[], command: string): PrinterCliArgs {
  let url: string | undefined;
  let profile: string | undefined;
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq !== -1 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith('--') && eq !== -1 ? arg.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = args[++i];
      if (next === undefined || next === '') throw new CliUsageError(`${name} needs a value`);
      return next;
    };
    if (name === '--url') url = value();
    else if (name === '--profile') profile = value();
    else if (arg === '--') positional.push(...args.slice(i + 1)), (i = args.length);
    else if (arg.startsWith('-') && arg !== '-') throw new CliUsageError(`unknown flag ${name} (see printfarm ${command} --help)`);
    else positional.push(arg);
  }
  if (url === undefined) throw new CliUsageError(`--url is required, e.g. --url serial:///dev/ttyUSB0?baud=115200`);
  return { url, profile, positional };
}
