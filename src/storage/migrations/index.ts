// Every migration, listed statically in order (a single binary has no migrations folder to read). Append, never edit.
import type { Migration } from './migration.js';
import { migration001Platform } from './001-platform.js';
import { migration002Printers } from './002-printers.js';

export const migrations: readonly Migration[] = [migration001Platform, migration002Printers];
