// Virtual printers behind raw TCP ports, as a ser2net or ESP3D bridge serves a real one: one client a port, the socket is the cable.
import { createServer, type Server, type Socket } from 'node:net';
import type { SimulatorOptions } from './simulator-options.js';
import { VirtualPrinter } from './virtual-printer.js';

export interface TcpBridgeOptions {
  host: string;
  /** First port; the printers take basePort..basePort+count-1. 0 gives each printer an ephemeral port. */
  basePort: number;
  count: number;
  simulator: SimulatorOptions;
  /** Connection events (connect, refuse, unplug, disconnect), one line each. */
  log?: (line: string) => void;
}

export interface TcpBridge {
  /** The port each printer listens on, in order. */
  readonly ports: readonly number[];
  /** Stops listening, drops every client and closes every printer. Safe to call twice. */
  close(): Promise<void>;
}

/** The printer on one port: at most one client, and a fresh board for each, as if the cable were plugged in. */
class BridgePort {
  private client: { socket: Socket; printer: VirtualPrinter } | null = null;

  constructor(
    readonly server: Server,
    private readonly simulator: SimulatorOptions,
    private readonly log: (line: string) => void,
  ) {
    server.on('connection', (socket) => this.accept(socket));
  }

  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  }

  private accept(socket: Socket): void {
    const peer = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    // A host that reconnects at once (after an emergency stop, say) may be here before its old socket's close
    // event: a client that already hung up is gone, not in the way.
    const old = this.client;
    if (old !== null && (old.socket.readableEnded || old.socket.destroyed)) {
      old.socket.destroy();
      old.printer.close();
      this.client = null;
    }
    if (this.client !== null) {
      // A serial line has one host; a second one would interleave its G-code with the first one's.
      this.log(`port ${this.port}: refused ${peer}: a client is already connected (one at a time)`);
      socket.destroy();
      return;
    }
    const printer = new VirtualPrinter(this.simulator);
    this.client = { socket, printer };
    this.log(`port ${this.port}: ${peer} connected, printer powered on`);
    socket.setNoDelay(true);
    printer.onOutput((bytes) => {
      if (!socket.destroyed) socket.write(bytes);
    });
    // The modelled cable's backlog holds the socket, so the host's TCP window fills as a serial write would block.
    socket.on('data', (data: Buffer) => {
      if (!printer.hostWrite(data)) socket.pause();
    });
    printer.onDrain(() => socket.resume());
    printer.onUnplug(() => {
      this.log(`port ${this.port}: the simulated cable was pulled (unplug_after_lines): dropping ${peer}`);
      socket.destroy();
    });
    socket.on('error', (err) => this.log(`port ${this.port}: ${peer}: ${err.message}`));
    socket.once('close', () => {
      printer.close();
      if (this.client?.socket === socket) this.client = null;
      this.log(`port ${this.port}: ${peer} disconnected`);
    });
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((done) => this.server.close(() => done()));
    this.client?.socket.destroy();
    this.client?.printer.close();
    await closed;
  }
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const why = err.code === 'EADDRINUSE' ? 'the port is in use' : err.code === 'EADDRNOTAVAIL' ? 'no such local address' : err.message;
      reject(new Error(`cannot listen on ${host}:${port}: ${why}`));
    };
    server.once('error', onError);
    server.listen({ host, port }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Opens every port (all or none: a failure closes those already open) and serves until close(). */
export async function startTcpBridge(opts: TcpBridgeOptions): Promise<TcpBridge> {
  const log = opts.log ?? (() => {});
  const ports: BridgePort[] = [];
  const closeAll = async (): Promise<void> => {
    await Promise.all(ports.map((p) => p.close()));
  };
  try {
    for (let i = 0; i < opts.count; i++) {
      const server = createServer();
      // A listening socket that fails later (rare) must not crash the simulator; the log says what happened.
      const port = new BridgePort(server, opts.simulator, log);
      ports.push(port);
      await listen(server, opts.host, opts.basePort === 0 ? 0 : opts.basePort + i);
      server.on('error', (err) => log(`port ${port.port}: ${err.message}`));
    }
  } catch (err) {
    await closeAll();
    throw err;
  }
  let closing: Promise<void> | null = null;
  return {
    ports: ports.map((p) => p.port),
    close: () => (closing ??= closeAll()),
  };
}
