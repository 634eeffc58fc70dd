// GET /v1/printers/discover: the serial ports present now and the network printers announced by mDNS, each with the
// printer (if any) whose connection_url names it.
import { listSerialPorts } from '../transport/serial-discovery.js';
import { linkIdentity, resolveDevice } from './connection-url.js';
import { networkPrinters, type DiscoveredNetworkPrinter } from './network-printers.js';
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

export async function discoverSerialPorts(svc: PrintersService): Promise<DiscoveredPort[]> {
  const ports = await listSerialPorts(svc.deps.discovery);
  // Keyed like the duplicate check: a serial URL names its device, whether by path or by a by-id link.
  const users = new Map<string, string>();
  for (const printer of await svc.listAll()) users.set(await linkIdentity(printer.connection_url), printer.id);
  const out: DiscoveredPort[] = [];
  for (const p of ports) {
    out.push({
      path: p.path,
      by_id: p.by_id ?? null,
      manufacturer: p.manufacturer ?? null,
      vendor_id: p.vendor_id ?? null,
      product_id: p.product_id ?? null,
      serial_number: p.serial_number ?? null,
      printer_id: users.get(`serial:${await resolveDevice(p.path)}`) ?? null,
    });
  }
  return out;
}

/** How the network list came about: off (`--no-mdns`), a browse (maybe reused), or why the network could not be used. */
export interface MdnsOutcome {
  enabled: boolean;
  browse_ms: number | null;
  browsed_at: string | null;
  cached: boolean;
  error: string | null;
}

export interface Discovery {
  data: DiscoveredPort[];
  network: DiscoveredNetworkPrinter[];
  mdns: MdnsOutcome;
}

/** Serial ports and network printers; the mDNS browse (bounded by browseMs) runs while the ports are listed. */
export async function discoverPrinters(svc: PrintersService, browseMs: number): Promise<Discovery> {
  const mdns = svc.deps.mdns;
  const [ports, browse] = await Promise.all([discoverSerialPorts(svc), mdns ? mdns.browse(browseMs) : null]);
  if (!browse) return { data: ports, network: [], mdns: { enabled: false, browse_ms: null, browsed_at: null, cached: false, error: null } };
  // Read after the browse: a printer added while it listened counts as using its address.
  const stored = await svc.listAll();
  return {
    data: ports,
    network: networkPrinters(browse.services, stored),
    mdns: { enabled: true, browse_ms: browse.browse_ms, browsed_at: browse.browsed_at, cached: browse.cached, error: browse.error },
  };
}
