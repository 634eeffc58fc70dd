// OctoPrint's push socket (SockJS's raw websocket transport: one JSON object per text frame) with the passive-login
// session as `auth`, reconnect with back-off, and a ping that finds a half-closed connection. Reports what it hears.
import WebSocket from 'ws';
import type { OctoPrintEndpoint } from './octoprint-url.js';
import { pinnedConnector } from '../pinned-tls.js';

export interface PushSocketOptions {
  endpoint: OctoPrintEndpoint;
  /** `user:session` from a passive login, fetched anew for every connection; null = connect without auth. */
  login(): Promise<string | null>;
  onMessage(type: string, payload: unknown): void;
  /** The socket is open and sent its first message (`connected`); `down` when it closed or failed (with why). */
  onUp(): void;
  onDown(reason: string): void;
  /** Back-off between reconnects: first wait and cap (defaults 500 ms, 10 s). */
  backoffMs?: { initial: number; max: number };
  /** Ping interval; no pong before the next ping means the connection is dead (default 10 s). */
  pingMs?: number;
  /** Give up on a connection attempt after this long (default 5 s). */
  connectTimeoutMs?: number;
}

export class OctoPrintPushSocket {
  private ws: WebSocket | null = null;
  private stopped = true;
  private up = false;
  private delay: number;
  private retryTimer: NodeJS.Timeout | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private gen = 0;

  constructor(private readonly opts: PushSocketOptions) {
    this.delay = opts.backoffMs?.initial ?? 500;
  }

  get isUp(): boolean {
    return this.up;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.open();
  }

  stop(): void {
    this.stopped = true;
    this.gen++;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.teardown();
  }

  private async open(): Promise<void> {
    const gen = ++this.gen;
    let auth: string | null = null;
    try {
      auth = await this.opts.login();
    } catch (err) {
      this.failed(gen, `passive login failed: ${(err as Error).message}`);
      return;
    }
    if (gen !== this.gen || this.stopped) return;
    const { endpoint } = this.opts;
    const options: WebSocket.ClientOptions = { handshakeTimeout: this.opts.connectTimeoutMs ?? 5000, maxPayload: 8 * 1024 * 1024 };
    if (endpoint.fingerprint) (options as { createConnection?: unknown }).createConnection = pinnedConnector(endpoint.fingerprint);
    const ws = new WebSocket(endpoint.socketUrl, options);
    this.ws = ws;
    let alive = true;
    ws.on('open', () => {
      if (auth !== null) ws.send(JSON.stringify({ auth }));
      this.pingTimer = setInterval(() => {
        if (!alive) {
          ws.terminate();
          return;
        }
        alive = false;
        ws.ping();
      }, this.opts.pingMs ?? 10_000);
    });
    ws.on('pong', () => (alive = true));
    ws.on('message', (data, isBinary) => {
      if (gen !== this.gen) return;
      alive = true;
      const parsed = isBinary ? null : parseMessage(String(data));
      if (parsed === null) {
        // A socket that speaks something else cannot be trusted for state: fall back to polling, and say why.
        this.failed(gen, `the push socket sent something that is not an OctoPrint message: ${JSON.stringify(String(data).slice(0, 60))}`);
        return;
      }
      if (!this.up) {
        this.up = true;
        this.delay = this.opts.backoffMs?.initial ?? 500;
        this.opts.onUp();
      }
      for (const [type, payload] of parsed) this.opts.onMessage(type, payload);
    });
    ws.on('error', () => undefined); // 'close' follows and reports
    ws.on('unexpected-response', (_req, res) => {
      this.failed(gen, `the push socket was refused (HTTP ${res.statusCode ?? '?'})`);
    });
    ws.on('close', (code) => this.failed(gen, `the push socket closed (code ${code})`));
  }

  private failed(gen: number, reason: string): void {
    if (gen !== this.gen) return;
    this.gen++;
    this.teardown();
    if (this.stopped) return;
    this.opts.onDown(reason);
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, this.opts.backoffMs?.max ?? 10_000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped) void this.open();
    }, wait);
  }

  private teardown(): void {
    this.up = false;
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.removeAllListeners('message');
      ws.removeAllListeners('close');
      ws.on('error', () => undefined);
      ws.terminate();
    }
  }
}

/** One frame: a JSON object of `{type: payload}` entries (SockJS raw form), else null. */
export function parseMessage(text: string): Array<[string, unknown]> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  return Object.entries(value as Record<string, unknown>);
}
