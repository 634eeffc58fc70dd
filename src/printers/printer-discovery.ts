// GET /v1/printers/discover: the serial ports present now, each with the printer (if any) whose connection_url names it.
import { realpath } from 'node:fs/promises';
import { listSerialPorts } from '../transport/serial-discovery.js';
import { checkConnectionUrl } from './connection-url.js';
import type { PrintersService } from './printers.service.js';

export interface DiscoveredPort {
  path: string;
  by_id: string | null;
  manufacturer: string | null;
  vendor_id: string | null;
  product_id: string | null;
  serial_number: string | null;
  /** The printer whose connection_url names this port (by its path or its by-id link), or null when free. */
  printer_id: string | null;
}

/** The device a path finally names (a by-id link resolves to /dev/ttyACM0); the path itself when it cannot be resolved. */
async function device(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path;
  }
}

export async function discoverSerialPorts(svc: PrintersService): Promise<DiscoveredPort[]> {
  const ports = await listSerialPorts(svc.deps.discovery);
  const users = new Map<string, string>();
  for (const printer of await svc.listAll()) {
    const parsed = checkConnectionUrl(printer.connection_url).parsed;
    if (parsed.kind !== 'serial') continue;
    users.set(parsed.path, printer.id);
    users.set(await device(parsed.path), printer.id);
  }
  const out: DiscoveredPort[] = [];
  for (const p of ports) {
    const printerId = users.get(p.path) ?? (p.by_id ? users.get(p.by_id) : undefined) ?? users.get(await device(p.path)) ?? null;
    out.push({
      path: p.path,
      by_id: p.by_id ?? null,
      manufacturer: p.manufacturer ?? null,
      vendor_id: p.vendor_id ?? null,
      product_id: p.product_id ?? null,
      serial_number: p.serial_number ?? null,
      printer_id: printerId,
    });
  }
  return out;
}
