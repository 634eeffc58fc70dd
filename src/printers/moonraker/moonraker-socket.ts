// One JSON-RPC 2.0 websocket to Moonraker: calls with deadlines, notifications to a handler, a ping that notices a
// half-closed connection, and one onClose with the reason, whatever way the connection ends (reconnecting is the link's).
import type { Agent } from 'node:http';
import WebSocket from 'ws';
import { MoonrakerError } from './moonraker-client.js';
import { isTlsFailure } from '../pinned-tls.js';

export interface MoonrakerSocketOptions {
  url: string;
  agent: Agent;
  /** Deadline of the opening handshake and of each call (default 10 s). */
  timeoutMs?: number;
  /** A ping this often; no pong before the next one means the connection is dead (default 10 s). */
  pingMs?: number;
  onNotification(method: string, params: unknown[]): void;
  /** Called once, when the socket ends after open() resolved. */
  onClose(err: MoonrakerError): void;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

export class MoonrakerSocket {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private pingTimer: NodeJS.Timeout | null = null;
  private alive = true;
  private closed = false;
  private readonly timeoutMs: number;

  private constructor(
    private readonly ws: WebSocket,
    private readonly opts: MoonrakerSocketOptions,
  ) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  /** Opens the socket; rejects with a MoonrakerError naming the reason (refused key, TLS, nothing there). */
  static open(opts: MoonrakerSocketOptions): Promise<MoonrakerSocket> {
    const timeoutMs = opts.timeoutMs ?? 10_000;
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(opts.url, { agent: opts.agent, handshakeTimeout: timeoutMs, maxPayload: 16 * 1024 * 1024 });
      const where = 'websocket';
      let done = false;
      const fail = (err: MoonrakerError): void => {
        if (done) return;
        done = true;
        ws.removeAllListeners();
        ws.on('error', () => undefined);
        ws.terminate();
        reject(err);
      };
      ws.on('unexpected-response', (_req, res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        fail(
          status === 401 || status === 403
            ? new MoonrakerError(`${where}: the connection was refused as unauthorized (HTTP ${status})`, 'auth_failed', status)
            : new MoonrakerError(`${where}: the upgrade was answered with HTTP ${status}`, 'unreachable', status),
        );
      });
      ws.on('error', (err) =>
        fail(new MoonrakerError(`${where}: ${err.message}`, isTlsFailure(err) ? 'tls_error' : 'unreachable')),
      );
      ws.on('open', () => {
        if (done) return;
        done = true;
        ws.removeAllListeners();
        const socket = new MoonrakerSocket(ws, opts);
        socket.attach();
        resolve(socket);
      });
    });
  }

  /** One JSON-RPC call; rejects with the server's error (MoonrakerError, reason null) or when the socket ends. */
  call<T>(method: string, params?: Record<string, unknown>): Promise<T> {
    if (this.closed) return Promise.reject(new MoonrakerError('websocket: closed', 'unreachable'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new MoonrakerError(`websocket: no answer to ${method} within ${this.timeoutMs} ms`, 'unreachable'));
      }, this.timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}), id }), (err) => {
        if (err) this.end(new MoonrakerError(`websocket: ${err.message}`, 'unreachable'));
      });
    });
  }

  /** Closes on purpose; onClose is not called. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stop(new MoonrakerError('websocket: closed', 'unreachable'));
    this.ws.close(1000);
    // A peer that never answers the close frame does not keep the socket.
    setTimeout(() => this.ws.terminate(), 1000).unref();
  }

  private attach(): void {
    this.ws.on('message', (data, isBinary) => this.message(isBinary ? null : data.toString()));
    this.ws.on('pong', () => {
      this.alive = true;
    });
    this.ws.on('error', (err) => this.end(new MoonrakerError(`websocket: ${err.message}`, isTlsFailure(err) ? 'tls_error' : 'unreachable')));
    this.ws.on('close', (code, reason) =>
      this.end(new MoonrakerError(`websocket closed by Moonraker (code ${code}${reason.length ? `: ${reason.toString()}` : ''})`, 'unreachable')),
    );
    this.pingTimer = setInterval(() => {
      if (!this.alive) {
        this.end(new MoonrakerError('websocket: no answer to a ping: the connection is half-closed', 'unreachable'));
        return;
      }
      this.alive = false;
      this.ws.ping();
    }, this.opts.pingMs ?? 10_000);
    this.pingTimer.unref();
  }

  private message(text: string | null): void {
    let msg: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = text === null ? null : JSON.parse(text);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) msg = parsed as Record<string, unknown>;
    } catch {
      // handled below
    }
    if (!msg) {
      const sample = (text ?? '<binary frame>').slice(0, 60);
      this.end(new MoonrakerError(`websocket: Moonraker sent something that is not JSON-RPC: ${JSON.stringify(sample)}`, 'unreachable'));
      return;
    }
    if (typeof msg.method === 'string') {
      try {
        this.opts.onNotification(msg.method, Array.isArray(msg.params) ? msg.params : []);
      } catch {
        // A handler's bug must not take the socket down.
      }
      return;
    }
    const id = typeof msg.id === 'number' ? msg.id : null;
    const p = id === null ? undefined : this.pending.get(id);
    if (!p) return;
    this.pending.delete(id!);
    clearTimeout(p.timer);
    const error = msg.error as { code?: unknown; message?: unknown } | undefined;
    if (error) {
      const code = typeof error.code === 'number' ? error.code : null;
      // Moonraker turns HTTP 401 into JSON-RPC -32602 with the message "Unauthorized".
      const auth = code === 401 || (code === -32602 && /unauthori[sz]ed/i.test(String(error.message)));
      p.reject(new MoonrakerError(String(error.message ?? 'error'), auth ? 'auth_failed' : null, code));
    } else p.resolve(msg.result);
  }

  private end(err: MoonrakerError): void {
    if (this.closed) return;
    this.closed = true;
    this.stop(err);
    this.ws.terminate();
    this.opts.onClose(err);
  }

  private stop(err: Error): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
  }
}
