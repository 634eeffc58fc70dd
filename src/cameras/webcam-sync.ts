// Keeps the cameras a Moonraker or OctoPrint printer lists on its own server in step with the farm: read when the
// printer comes online and again every minute, added, changed and removed by name (source moonraker / octoprint).
import type { Kysely } from 'kysely';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../logger.js';
import { MoonrakerClient } from '../printers/moonraker/moonraker-client.js';
import { parseMoonrakerUrl } from '../printers/moonraker/moonraker-url.js';
import { networkKindOf, parseNetworkUrl } from '../printers/network-url.js';
import { OctoPrintHttpClient } from '../printers/octoprint/octoprint-http-client.js';
import { parseOctoPrintUrl } from '../printers/octoprint/octoprint-url.js';
import type { Database } from '../storage/schema.js';
import type { CamerasService } from './cameras.service.js';
import { moonrakerWebcams, octoprintWebcams, type FoundWebcam } from './printer-webcams.js';

export const WEBCAM_SYNC_EVERY_MS = 60_000;

export interface WebcamSyncDeps {
  db: Kysely<Database>;
  bus: EventBus;
  logger: Logger;
  cameras: CamerasService;
  /** The printer's stored credential for its own API (X-Api-Key). */
  readApiKey(printerId: string): Promise<string | null>;
  /** This node: only the printers it drives are asked (another node asks its own). */
  nodeId: string;
  everyMs?: number;
}

/** What the printer's server lists, or null when the printer is of another kind. */
export async function listPrinterWebcams(connectionUrl: string, apiKey: string | null): Promise<{ source: 'moonraker' | 'octoprint'; found: FoundWebcam[] } | null> {
  const kind = networkKindOf(connectionUrl);
  if (kind === 'moonraker') {
    const address = parseMoonrakerUrl(connectionUrl);
    const client = new MoonrakerClient({ address, apiKey, timeoutMs: 5000, retries: 0 });
    return { source: 'moonraker', found: moonrakerWebcams(await client.get('/server/webcams/list'), parseNetworkUrl(connectionUrl).host) };
  }
  if (kind === 'octoprint') {
    const endpoint = parseOctoPrintUrl(connectionUrl);
    const client = new OctoPrintHttpClient({ endpoint, apiKey: apiKey ?? '', timeoutMs: 5000, retries: 0 });
    return { source: 'octoprint', found: octoprintWebcams(await client.get('/api/settings'), endpoint.httpBase, parseNetworkUrl(connectionUrl).host) };
  }
  return null;
}

export class WebcamSync {
  private timer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: Array<() => void> = [];
  private readonly running = new Map<string, Promise<void>>();

  constructor(private readonly d: WebcamSyncDeps) {}

  start(): void {
    this.unsubscribe.push(this.d.bus.on('printer.online', (p) => void this.syncPrinter(p.printer_id)));
    this.timer = setInterval(() => void this.syncAll(), this.d.everyMs ?? WEBCAM_SYNC_EVERY_MS);
    this.timer.unref?.();
  }

  stop(): void {
    clearInterval(this.timer);
    for (const off of this.unsubscribe.splice(0)) off();
  }

  async settled(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }

  /** Reads one printer's webcam list now (a read already running is joined). Never throws: a failure is logged. */
  syncPrinter(printerId: string): Promise<void> {
    const held = this.running.get(printerId);
    if (held) return held;
    const run = this.read(printerId).finally(() => this.running.delete(printerId));
    this.running.set(printerId, run);
    return run;
  }

  private async syncAll(): Promise<void> {
    const rows = await this.d.db.selectFrom('printers').select(['id', 'connection_url', 'node_id']).execute();
    for (const row of rows) {
      if (networkKindOf(row.connection_url) !== 'moonraker' && networkKindOf(row.connection_url) !== 'octoprint') continue;
      if (row.node_id !== null && row.node_id !== this.d.nodeId) continue;
      await this.syncPrinter(row.id);
    }
  }

  private async read(printerId: string): Promise<void> {
    try {
      const row = await this.d.db.selectFrom('printers').select(['connection_url', 'node_id']).where('id', '=', printerId).executeTakeFirst();
      if (!row || (row.node_id !== null && row.node_id !== this.d.nodeId)) return;
      const listed = await listPrinterWebcams(row.connection_url, await this.d.readApiKey(printerId));
      if (!listed) return;
      await this.d.cameras.syncFound(printerId, listed.source, listed.found);
    } catch (err) {
      // The printer's own status says when it cannot be reached; its cameras stay as last read.
      this.d.logger.warn("could not read the printer's webcam list", { printer_id: printerId, error: err as Error });
    }
  }
}
