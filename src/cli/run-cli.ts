// The `printfarm` command line as a function: parses the first word and dispatches to the commands listed in commands.ts.
import { commands } from './commands.js';
import { CliUsageError } from './command.js';
import { VERSION } from '../version.js';

function helpText(): string {
  const width = Math.max(...commands.map((c) => c.name.length), 4);
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    `printfarm ${VERSION}: the print farm appliance`,
    '',
    'Usage: printfarm <command> [flags]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `printfarm <command> --help` for the flags of one command.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    console.log(helpText());
    return first === undefined ? 2 : 0;
  }
  if (first === '--version' || first === '-v' || first === 'version') {
    console.log(VERSION);
    return 0;
  }
  const entry = commands.find((c) => c.name === first);
  if (!entry) {
    console.error(`printfarm: unknown command "${first}" (see printfarm --help)`);
    return 2;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(command.usage);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof CliUsageError) {
      console.error(`printfarm ${command.name}: ${err.message}`);
      return 2;
    }
    console.error(`printfarm ${command.name}: ${(err as Error).message}`);
    return 1;
  }
}

