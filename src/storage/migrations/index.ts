// Every migration, listed statically in order (a single binary has no migrations folder to read). Append, never edit.
import type { Migration } from './migration.js';
import { migration001Platform } from './001-platform.js';
import { migrationJobs } from './002-jobs.js';

export const migrations: readonly Migration[] = [migration001Platform, migrationJobs];
