// What the metrics read from the running program: the database, the live printer sessions, the webhook worker's tallies.
import type { Clock } from '../clock.js';
import type { PrinterLink } from '../printers/printer-link.js';
import type { Db } from '../storage/db.js';
import type { AttemptOutcome } from '../webhooks/delivery-worker.js';

export interface MetricsSources {
  db: Db;
  /** The app's clock: job timestamps are written by it, so waiting times are measured by it too. */
  clock: Clock;
  sessions: { list(): PrinterLink[]; get(printerId: string): PrinterLink | undefined };
  /** Recorded delivery attempts since start, by outcome. */
  webhookOutcomes: () => Readonly<Record<AttemptOutcome, number>>;
  /** The data directory: its filesystem's free space is reported. */
  dataDir: string;
  /** Each watched camera's counters (the cameras feature); none when absent. */
  cameraStats?: () => ReadonlyArray<{ id: string; printer_id: string; frames_in: number; frames_out: number; dropped: number; viewers: number; reconnects: number }>;
}
