// sim://NAME?profile=marlin&baud=250000&...: a virtual printer in this process behind the same Transport seam as a serial port.
import { parseSimulatorOptions } from '../simulator/simulator-options.js';
import { VirtualPrinter } from '../simulator/virtual-printer.js';
import type { SimScheduler } from '../simulator/sim-scheduler.js';
import { cleanLines, MAX_PENDING_LINE_BYTES } from './line-parser.js';
import type { Transport, TransportHandlers } from './transport.js';

export class SimTransport implements Transport {
  readonly description: string;
  readonly name: string;
  /** The firmware model: tests read `executed` and `stats` and trigger faults on it. */
  readonly printer: VirtualPrinter;
  /** The simulated line rate; undefined for a simulated native-USB link (baud=0), which has none. */
  readonly baudRate: number | undefined;
  private handlers: TransportHandlers | null = null;
  private pending = '';
  private detach: Array<() => void> = [];

  constructor(url: URL, deps: { scheduler?: SimScheduler } = {}) {
    if (url.protocol !== 'sim:') throw new Error(`not a sim:// URL: ${url.href}`);
    this.name = decodeURIComponent(url.hostname || url.pathname.replace(/^\/+/, ''));
    if (this.name === '') throw new Error(`sim URL "${url.href}" needs a printer name, e.g. sim://printer1`);
    // Throws naming the unknown option or the bad value.
    const options = parseSimulatorOptions(url.searchParams);
    this.description = url.href;
    this.baudRate = options.baud > 0 ? options.baud : undefined;
    this.printer = new VirtualPrinter(options, { ...deps, start: false });
  }

  async open(handlers: TransportHandlers): Promise<void> {
    if (this.handlers !== null) throw new Error(`${this.description} is already open`);
    this.handlers = handlers;
    this.pending = '';
    this.detach = [
      this.printer.onOutput((bytes) => this.receive(bytes)),
      this.printer.onDrain(() => this.handlers?.onDrain()),
      this.printer.onUnplug(() => this.finish(new Error(`virtual printer ${this.name}: the cable was pulled`))),
    ];
    // Opening the port powers the board on (like the DTR reset of a real one): it boots and prints its banner.
    this.printer.start();
  }

  write(data: string | Buffer): boolean {
    if (this.handlers === null) return true;
    return this.printer.hostWrite(typeof data === 'string' ? Buffer.from(data, 'latin1') : data);
  }

  async close(): Promise<void> {
    if (this.handlers === null) return;
    this.printer.powerOff();
    this.finish(null);
  }

  private receive(bytes: Buffer): void {
    const handlers = this.handlers;
    if (handlers === null) return;
    let text = this.pending + bytes.toString('latin1');
    let nl = text.indexOf('\n');
    while (nl >= 0 && this.handlers === handlers) {
      for (const line of cleanLines(text.slice(0, nl))) handlers.onLine(line);
      text = text.slice(nl + 1);
      nl = text.indexOf('\n');
    }
    this.pending = text.length > MAX_PENDING_LINE_BYTES ? '' : text;
  }

  private finish(error: Error | null): void {
    const handlers = this.handlers;
    if (handlers === null) return;
    this.handlers = null;
    for (const d of this.detach) d();
    this.detach = [];
    this.pending = '';
    handlers.onClose(error);
  }
}

/** The factory open-transport.ts calls; throws a clear Error for an unknown option or a bad value. */
export function createSimTransport(url: URL, deps: { scheduler?: SimScheduler } = {}): SimTransport {
  return new SimTransport(url, deps);
}
