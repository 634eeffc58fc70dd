// Raw G-code over TCP, as ser2net, ESP3D and other Wi-Fi serial bridges serve it: the socket is the serial line.
import { connect, type Socket } from 'node:net';
import { StreamTransport } from './stream-transport.js';
import type { TransportHandlers } from './transport.js';

export interface TcpTransportOptions {
  host: string;
  port: number;
  /** Give up connecting after this long; a powered-off bridge otherwise hangs for the OS's SYN timeout (minutes). */
  connectTimeoutMs?: number;
  /** Idle time before TCP keepalive probes start, so a vanished bridge is eventually noticed even with no traffic. */
  keepAliveMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
const DEFAULT_KEEPALIVE_MS = 10_000;
/** One read at most: a printer's replies to a window of lines fit many times over. */
const READ_BUFFER_BYTES = 16 * 1024;

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function connectFailure(target: string, err: NodeJS.ErrnoException): Error {
  let why: string;
  switch (err.code) {
    case 'ECONNREFUSED':
      why = 'refused (is the bridge running and the port right?)';
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      why = 'failed: host name not found';
      break;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      why = 'failed: host unreachable';
      break;
    default:
      why = `failed: ${err.message}`;
  }
  return new Error(`connection to ${target} ${why}`, { cause: err });
}

export class TcpTransport extends StreamTransport {
  readonly description: string;
  private readonly opts: Required<TcpTransportOptions>;
  private readonly target: string;
  private socket: Socket | null = null;

  constructor(opts: TcpTransportOptions) {
    super();
    this.opts = {
      connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS,
      keepAliveMs: DEFAULT_KEEPALIVE_MS,
      ...opts,
    };
    this.target = hostPort(opts.host, opts.port);
    this.description = `tcp://${this.target}`;
  }

  async open(handlers: TransportHandlers): Promise<void> {
    if (this.socket !== null && !this.finished) throw new Error(`${this.description} is already open`);
    // Reads land in one buffer of our own, straight into the line splitter: no Buffer and no stream event per read.
    const onread = { buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES), callback: this.linesFromReads(() => this.handlers) };
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ host: this.opts.host, port: this.opts.port, onread });
      const timer = setTimeout(() => {
        s.destroy();
        reject(new Error(`connection to ${this.target} timed out after ${this.opts.connectTimeoutMs} ms`));
      }, this.opts.connectTimeoutMs);
      s.once('connect', () => {
        clearTimeout(timer);
        s.removeAllListeners('error');
        resolve(s);
      });
      s.once('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        s.destroy();
        reject(connectFailure(this.target, err));
      });
    });
    this.socket = socket;
    this.begin(handlers);

    // Short G-code lines must leave at once: Nagle would hold each one for the previous line's ACK.
    socket.setNoDelay(true);
    socket.setKeepAlive(true, this.opts.keepAliveMs);
    socket.on('drain', () => this.handlers?.onDrain());
    socket.on('error', (err: NodeJS.ErrnoException) => {
      this.lost(err.code === 'ECONNRESET' ? 'connection reset by the bridge' : err.message);
    });
    socket.on('close', () => this.lost('connection closed by the bridge'));
  }

  /**
   * Throws when the link was never opened or close() was called: that is a caller bug. After the link is lost it
   * returns false and drops the bytes, since the printer is gone and onClose is on its way (or already delivered).
   */
  write(data: string | Buffer): boolean {
    const socket = this.socket;
    if (socket === null || this.closeRequested) throw new Error(`${this.description} is not open`);
    if (this.finished || socket.destroyed) return false;
    return socket.write(data);
  }

  protected release(done: () => void): void {
    const socket = this.socket;
    if (socket === null) return;
    socket.once('close', () => done());
    // end() lets queued G-code reach the bridge; destroy after a grace period in case the peer never acknowledges.
    socket.end();
    const force = setTimeout(() => socket.destroy(), 1000);
    force.unref();
    socket.once('close', () => clearTimeout(force));
  }

  private lost(reason: string): void {
    if (this.closing) return;
    this.socket?.destroy();
    void this.finish(new Error(`link lost: ${reason} (${this.description})`));
  }
}
