// Migration: what network printers add to the records: a file's format (Prusa's binary G-code prints only on PrusaLink
// printers) and a job's origin (a print started on the printer itself is recorded as an external job).
import type { Migration } from './migration.js';

export const migration012NetworkPrinters: Migration = {
  version: 12,
  name: 'network-printers',
  sql: `
    ALTER TABLE files ADD COLUMN format TEXT NOT NULL DEFAULT 'gcode' CHECK (format IN ('gcode', 'bgcode'));
    -- queue: created through the API and scheduled; external: started on the printer (its screen, Mainsail,
    -- OctoPrint), recorded when it ended so analytics count its hours. An external job has no stored file (file_id '').
    ALTER TABLE jobs ADD COLUMN origin TEXT NOT NULL DEFAULT 'queue' CHECK (origin IN ('queue', 'external'));
    -- How material_used was measured: wire, file_position, progress_percent or printer_report (null before it ran).
    ALTER TABLE jobs ADD COLUMN material_used_basis TEXT;
  `,
  pg: `
    ALTER TABLE files ADD COLUMN format TEXT NOT NULL DEFAULT 'gcode' CHECK (format IN ('gcode', 'bgcode'));
    -- queue: created through the API and scheduled; external: started on the printer (its screen, Mainsail,
    -- OctoPrint), recorded when it ended so analytics count its hours. An external job has no stored file (file_id '').
    ALTER TABLE jobs ADD COLUMN origin TEXT NOT NULL DEFAULT 'queue' CHECK (origin IN ('queue', 'external'));
    -- How material_used was measured: wire, file_position, progress_percent or printer_report (null before it ran).
    ALTER TABLE jobs ADD COLUMN material_used_basis TEXT;
  `,
};
