// What the materials page reads from /v1: the spool record, its usage lines, and the printers spools can be loaded on.
import type { MaterialRecord } from '../../../src/materials/materials.service.js';
import { fetchAll } from './settings-fields.js';

/** A spool as GET /v1/materials returns it: the server's own record type. */
export type Material = MaterialRecord;

/** One line of GET /v1/materials/:id/usage: what one job drew from the spool on one tool. */
export interface UsageLine {
  job_id: string;
  job_name: string;
  job_status?: string;
  printer_id: string | null;
  tool: number;
  grams: number;
  cost?: number | null;
  at: string;
}

/** What the page needs of a printer: its name for the "loaded on" column and the load picker. */
export interface PrinterRef {
  id: string;
  name: string;
  group: string | null;
  status: string;
}

export const loadPrinters = (): Promise<PrinterRef[]> => fetchAll<PrinterRef>('/v1/printers', { fields: 'id,name,group,status', sort: 'name' });

/** At or below its reorder threshold (a spool without one is never low). */
export const isLow = (m: Material): boolean => m.reorder_threshold !== null && m.remaining_weight <= m.reorder_threshold && m.status !== 'archived';

/** Remaining filament as a share of a full spool, 0..100. */
export const remainingPercent = (m: Material): number => (m.spool_weight > 0 ? (m.remaining_weight / m.spool_weight) * 100 : 0);

/** "PETG · Prusament · Galaxy Black": how a spool is named in headings and confirmations. */
export const spoolName = (m: Material): string => [m.type, m.brand, m.color].filter(Boolean).join(' · ');

/** Types offered in the add form (any other type works too when it states its density). */
export const COMMON_TYPES = ['PLA', 'PLA+', 'PETG', 'ABS', 'ASA', 'TPU', 'PA', 'PC'];
