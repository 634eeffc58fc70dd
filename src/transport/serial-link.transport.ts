// What both serial transports (node-serialport on the main thread, the addon's fd in a worker) share: checked options,
// the description, the rate in use and the low-latency result.
import { NO_LOW_LATENCY, type LowLatencyMode } from './serial-low-latency.js';
import { StreamTransport } from './stream-transport.js';

export interface SerialTransportOptions {
  /** Device path, e.g. /dev/ttyACM0 or a /dev/serial/by-id/ link. */
  path: string;
  /** Rates to try in order; the first is used by open(). One entry when the URL named a baud. */
  baudCandidates: readonly number[];
}

export abstract class SerialLinkTransport extends StreamTransport {
  readonly description: string;
  readonly baudCandidates: readonly number[];
  /** What low-latency tuning the last open obtained (nothing on pseudo-terminals and non-Linux hosts). */
  lowLatency: LowLatencyMode = { ...NO_LOW_LATENCY };

  protected readonly path: string;
  protected baud: number;

  constructor(opts: SerialTransportOptions) {
    super();
    const first = opts.baudCandidates[0];
    if (first === undefined) throw new Error('serial transport needs at least one baud rate');
    const bad = opts.baudCandidates.find((b) => !Number.isSafeInteger(b) || b <= 0);
    if (bad !== undefined) throw new Error(`serial transport: ${bad} is not a baud rate`);
    this.path = opts.path;
    this.baudCandidates = [...opts.baudCandidates];
    this.baud = first;
    const named = this.baudCandidates.length === 1 ? `?baud=${first}` : '';
    this.description = `serial://${opts.path}${named}`;
  }

  /** The rate the port is set to now. */
  get baudRate(): number {
    return this.baud;
  }

  abstract setBaudRate(baud: number): Promise<void>;
}
