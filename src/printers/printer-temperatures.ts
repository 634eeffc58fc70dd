// GET /v1/printers/:id/temperatures: a stored printer's in-memory temperature history as the API shows it.
import { isoTime } from '../clock.js';
import type { PrintersService } from './printers.service.js';
import { parseMinutes } from './printers.schemas.js';
import { TEMPERATURE_INTERVAL_MS, type TemperatureHistory } from './temperature-history.js';

export interface TemperatureHistoryResponse {
  printer_id: string;
  interval_seconds: number;
  samples: Array<{ at: string; hotend: number | null; hotend_target: number | null; bed: number | null; bed_target: number | null }>;
}

/** 404 for an unknown printer; an empty `samples` for one never connected in the window. */
export async function temperatureHistory(
  deps: { printers: PrintersService; temperatures: TemperatureHistory },
  printerId: string,
  minutesText: string | undefined,
): Promise<TemperatureHistoryResponse> {
  const minutes = parseMinutes(minutesText);
  await deps.printers.requireRow(printerId);
  return {
    printer_id: printerId,
    interval_seconds: TEMPERATURE_INTERVAL_MS / 1000,
    samples: deps.temperatures.read(printerId, minutes).map((s) => ({ ...s, at: isoTime(s.at) })),
  };
}
