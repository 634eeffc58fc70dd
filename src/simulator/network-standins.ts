// One way to start any network printer stand-in (Moonraker, OctoPrint, PrusaLink, Bambu) by kind, for the CLI and the demo farm.
import { MOONRAKER_FAULTS, startMoonrakerStandIn, type MoonrakerFault } from './moonraker/moonraker-standin.js';
import { OCTOPRINT_FAULTS, startOctoPrintStandIn, type OctoPrintFault } from './octoprint/octoprint-standin.js';
import { PRUSALINK_FAULTS, startPrusaLinkStandIn, type PrusaLinkFault } from './prusalink/prusalink-standin.js';
import { startBambuStandIn } from './bambu/bambu-standin.js';
import type { SimulatorOptions } from './simulator-options.js';

/** The network printer APIs a stand-in serves (the printers feature's network kinds). */
export const STANDIN_KINDS = ['moonraker', 'octoprint', 'prusalink', 'bambu'] as const;
export type StandInKind = (typeof STANDIN_KINDS)[number];

export interface NetworkStandIn {
  kind: StandInKind;
  /** The connection_url a farm adds the printer with (moonraker://127.0.0.1:PORT, ...). */
  connectionUrl: string;
  port: number;
  setFault(name: string, on: boolean): void;
  close(): Promise<void>;
}

export interface NetworkStandInOptions {
  port: number;
  host?: string;
  /** The credential the stand-in demands (X-Api-Key); null: Moonraker trusts every client, the others need one. */
  apiKey: string | null;
  faults?: string[];
  simulator?: Partial<SimulatorOptions>;
}

export const STANDIN_FAULTS: Record<StandInKind, readonly string[]> = {
  moonraker: MOONRAKER_FAULTS,
  octoprint: OCTOPRINT_FAULTS,
  prusalink: PRUSALINK_FAULTS,
  bambu: [],
};

/** The credential a stand-in uses when none is given (OctoPrint cannot run without one). */
export const DEFAULT_STANDIN_KEY = 'printfarm-standin';

export async function startNetworkStandIn(kind: StandInKind, o: NetworkStandInOptions): Promise<NetworkStandIn> {
  const host = o.host ?? '127.0.0.1';
  for (const f of o.faults ?? []) {
    if (!STANDIN_FAULTS[kind].includes(f)) throw new Error(`unknown ${kind} fault "${f}" (known: ${STANDIN_FAULTS[kind].join(', ') || 'none'})`);
  }
  const hostPart = host.includes(':') ? `[${host}]` : host;
  switch (kind) {
    case 'moonraker': {
      const s = await startMoonrakerStandIn({ port: o.port, host, apiKey: o.apiKey, faults: o.faults as MoonrakerFault[], simulator: o.simulator });
      return { kind, port: s.port, connectionUrl: `moonraker://${hostPart}:${s.port}`, setFault: (n, on) => s.setFault(n as MoonrakerFault, on), close: () => s.close() };
    }
    case 'octoprint': {
      const faults = Object.fromEntries((o.faults ?? []).map((f) => [f, true])) as Partial<Record<OctoPrintFault, boolean>>;
      const s = await startOctoPrintStandIn({ port: o.port, host, apiKey: o.apiKey ?? DEFAULT_STANDIN_KEY, faults, simulator: o.simulator });
      return { kind, port: s.port, connectionUrl: `octoprint://${hostPart}:${s.port}`, setFault: (n, on) => s.setFault(n as OctoPrintFault, on), close: () => s.close() };
    }
    case 'prusalink': {
      const s = await startPrusaLinkStandIn({ port: o.port, host, apiKey: o.apiKey ?? DEFAULT_STANDIN_KEY, faults: o.faults as PrusaLinkFault[], simulator: o.simulator });
      return { kind, port: s.port, connectionUrl: `prusalink://${hostPart}:${s.port}`, setFault: (n, on) => s.setFault(n as PrusaLinkFault, on), close: () => s.close() };
    }
    case 'bambu': {
      // Mosquitto and vsftpd listen on 127.0.0.1 only; the port is the MQTT one (FTPS gets a free one, in the URL).
      if (host !== '127.0.0.1') throw new Error('the Bambu stand-in listens on 127.0.0.1 only');
      const s = await startBambuStandIn({ mqttPort: o.port, accessCode: o.apiKey ?? DEFAULT_STANDIN_KEY, simulator: o.simulator });
      return { kind, port: s.mqttPort, connectionUrl: `${s.url}&fingerprint=${s.fingerprint}`, setFault: () => undefined, close: () => s.close() };
    }
  }
}
