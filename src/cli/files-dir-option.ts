// --files-dir / PRINTFARM_FILES_DIR for the offline commands that reach a PostgreSQL farm's files (backup, restore).
import path from 'node:path';
import { envVarFor } from '../config.js';
import { CliUsageError } from './command.js';

/** The flag wins over the variable; absent or empty variable: null (the farm keeps its files in the database). */
export function filesDirOption(flag: string | undefined, environment: NodeJS.ProcessEnv): string | null {
  if (flag !== undefined) {
    if (!flag.trim()) throw new CliUsageError('--files-dir must not be empty');
    return path.resolve(flag);
  }
  const fromEnv = environment[envVarFor('files-dir')];
  return fromEnv ? path.resolve(fromEnv) : null;
}
