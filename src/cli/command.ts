// The shape of one CLI command; src/cli/commands.ts lists them all statically (with their one-line summaries) so the single binary needs no directory scan.
export interface CliCommand {
  /** The word after `printfarm`, e.g. "serve". Sub-commands ("keys create") are handled inside the command. */
  name: string;
  /** Full usage text for `printfarm NAME --help`. */
  usage: string;
  /** Runs the command; resolves to the process exit status. Throw CliUsageError for bad flags. */
  run(args: string[]): Promise<number>;
}

/** A user mistake on the command line: printed as one line, exit status 2. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}
