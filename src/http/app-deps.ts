// What the HTTP app needs from the rest of the program, wired by hand in cli/serve.command.ts (and by tests).
import type BetterSqlite3 from 'better-sqlite3';
import type { Clock } from '../clock.js';
import type { RunEnvironment } from '../config.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logger.js';
import type { Db } from '../storage/db.js';
import type { AccessControl } from './middleware/access-control.js';

export interface AppDeps {
  db: Db;
  sqlite: BetterSqlite3.Database;
  clock: Clock;
  /** The environment this server runs in: it mints and accepts only keys of it. */
  env: RunEnvironment;
  bus: EventBus;
  logger: Logger;
  /** Keys, scopes and limits for the auth middleware; built once with the deps (auth/auth-runtime.ts). */
  auth: AccessControl;
}
