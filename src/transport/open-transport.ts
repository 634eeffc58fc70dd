// Turns a printer connection URL into its transport: serial port, TCP bridge or in-process simulator.
import { createSimTransport } from './sim.transport.js';
import { SerialTransport } from './serial.transport.js';
import { WorkerSerialTransport } from './serial-worker.transport.js';
import { TcpTransport } from './tcp.transport.js';
import type { Transport, TransportOptions } from './transport.js';
import { parseTransportUrl } from './transport-url.js';

export {
  DEFAULT_BAUD_CANDIDATES,
  parseTransportUrl,
  STANDARD_BAUD_RATES,
  type SerialTransportUrl,
  type SimTransportUrl,
  type TcpTransportUrl,
  type TransportUrl,
} from './transport-url.js';

/** Builds the transport a connection URL names; nothing is opened until the session calls open(). */
export function createTransport(url: string, opts: TransportOptions = {}): Transport {
  return buildTransport(url, opts, SerialTransport);
}

/**
 * createTransport for a session in a worker thread: serial ports do all their I/O on the worker's own loop
 * (node-serialport's poller would wait on the main thread's). TCP and the simulator need nothing different.
 */
export function createWorkerTransport(url: string, opts: TransportOptions = {}): Transport {
  return buildTransport(url, opts, WorkerSerialTransport);
}

function buildTransport(url: string, opts: TransportOptions, Serial: typeof SerialTransport | typeof WorkerSerialTransport): Transport {
  const parsed = parseTransportUrl(url);
  switch (parsed.kind) {
    case 'serial':
      return new Serial({
        path: parsed.path,
        baudCandidates: parsed.baud !== undefined ? [parsed.baud] : (opts.baudCandidates ?? parsed.baudCandidates()),
      });
    case 'tcp':
      return new TcpTransport({ host: parsed.host, port: parsed.port });
    case 'sim':
      return createSimTransport(parsed.url);
  }
}
