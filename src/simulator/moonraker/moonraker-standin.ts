// A Moonraker stand-in on 127.0.0.1: the HTTP endpoints and the JSON-RPC websocket a printfarm driver uses, written from
// Moonraker's public documentation, over a KlipperHost (a VirtualPrinter fed by a virtual_sdcard), with fault switches.
import http from 'node:http';
import https from 'node:https';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';
import { WebSocketServer, type WebSocket } from 'ws';
import type { SimulatorOptions } from '../simulator-options.js';
import type { VirtualPrinter } from '../virtual-printer.js';
import { GcodeError, KlipperHost, KlippyNotReady } from './klipper-host.js';

export const MOONRAKER_FAULTS = [
  /** Every websocket is cut without a close frame, and new ones are refused while on. */
  'drop_socket',
  /** Websockets stay open but nothing is read or answered (pings included): a half-closed connection. */
  'half_close',
  /** Websockets receive a frame that is not JSON. */
  'garbage',
  /** Every HTTP request answers 500 with Moonraker's JSON error. */
  'http_500',
  /** Every HTTP request answers an HTML page (a proxy or captive portal in the way). */
  'html',
  /** The api key (and tokens) are refused: 401. */
  'refuse_key',
  /** Klipper shuts down with the given message (emergency stop, a heater fault). Off: FIRMWARE_RESTART. */
  'klipper_shutdown',
  /** Moonraker loses Klippy (notify_klippy_disconnected). Off: Klippy is back and ready. */
  'klippy_disconnected',
] as const;
export type MoonrakerFault = (typeof MOONRAKER_FAULTS)[number];

export interface MoonrakerStandInOptions {
  /** 0 = any free port. */
  port?: number;
  host?: string;
  /** Required as X-Api-Key (or a oneshot token); null = every client is trusted. */
  apiKey?: string | null;
  /** Faults switched on from the start. */
  faults?: MoonrakerFault[];
  /** Serve HTTPS/WSS with this certificate. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** The virtual printer's settings (speed, instant, ...); the profile is always klipper. */
  simulator?: Partial<SimulatorOptions>;
  /** How often subscribers get notify_status_update with what changed (Moonraker/Klipper: 250 ms). */
  statusIntervalMs?: number;
  /** Oneshot tokens expire after this long (Moonraker: 5 s). */
  tokenTtlMs?: number;
}

export interface MoonrakerStandIn {
  url: string;
  port: number;
  close(): Promise<void>;
  /** `message` is Klipper's shutdown reason for klipper_shutdown. */
  setFault(name: MoonrakerFault, on: boolean, message?: string): void;
  printer: VirtualPrinter;
  /** Uploads a file and starts it as Mainsail or the printer's screen would: a print printfarm did not start. */
  startExternalPrint(name: string, gcode: string | Buffer): void;
  /** The Klipper side: files, print state, shutdown. */
  klipper: KlipperHost;
}

interface Conn {
  ws: WebSocket;
  authed: boolean;
  subscription: Record<string, string[] | null> | null;
  sent: Record<string, Record<string, unknown>>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startMoonrakerStandIn(opts: MoonrakerStandInOptions = {}): Promise<MoonrakerStandIn> {
  const apiKey = opts.apiKey ?? null;
  const faults = new Set<MoonrakerFault>(opts.faults ?? []);
  const tokens = new Map<string, number>();
  const conns = new Set<Conn>();
  const broadcast = (method: string, params?: unknown[]): void => {
    const text = JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
    for (const c of conns) if (c.authed && !faults.has('half_close')) c.ws.send(text);
  };
  const klipper = new KlipperHost(opts.simulator ?? {}, {
    response: (text) => broadcast('notify_gcode_response', [text]),
    klippy: (state) => {
      if (state === 'ready') broadcast('notify_klippy_ready');
      else if (state === 'shutdown') broadcast('notify_klippy_shutdown');
      else if (state === 'disconnected') broadcast('notify_klippy_disconnected');
    },
  });
  const eventtime = (): number => process.uptime();

  const keyOk = (key: string | undefined, token: string | null): boolean => {
    if (apiKey === null) return true;
    if (faults.has('refuse_key')) return false;
    if (token !== null) {
      const exp = tokens.get(token);
      tokens.delete(token);
      if (exp !== undefined && exp > Date.now()) return true;
    }
    return key === apiKey;
  };

  // ---------------------------------------------------------------- the API, shared by HTTP and JSON-RPC

  const serverInfo = (): Record<string, unknown> => ({
    klippy_connected: klipper.klippy !== 'disconnected',
    klippy_state: klipper.klippy,
    components: ['database', 'file_manager', 'klippy_apis', 'machine', 'data_store', 'history'],
    failed_components: [],
    registered_directories: ['config', 'gcodes'],
    warnings: [],
    websocket_count: conns.size,
    moonraker_version: 'v0.9.3-standin',
    api_version: [1, 5, 0],
    api_version_string: '1.5.0',
  });
  const printerInfo = (): Record<string, unknown> => {
    if (klipper.klippy === 'disconnected') throw new HttpError(503, 'Klippy Host not connected');
    return {
      state: klipper.klippy,
      state_message: klipper.stateMessage,
      hostname: 'standin',
      software_version: 'v0.12.0-standin',
      cpu_info: 'printfarm stand-in',
      klipper_path: '/home/pi/klipper',
      python_path: '/home/pi/klippy-env/bin/python',
      log_file: '/home/pi/printer_data/logs/klippy.log',
      config_file: '/home/pi/printer_data/config/printer.cfg',
    };
  };
  const query = (objects: unknown): Record<string, unknown> => {
    const all = klipper.objects();
    return { eventtime: eventtime(), status: pick(all, normalizeSpec(objects)) };
  };
  /** Klipper's requests: 503 while Klippy is away, 400 for its own errors. */
  const klippyCall = async <T>(fn: () => T | Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof KlippyNotReady) throw new HttpError(err.state === 'disconnected' ? 503 : 400, err.message);
      if (err instanceof GcodeError) throw new HttpError(400, err.message);
      throw err;
    }
  };
  const methods: Record<string, (p: Record<string, unknown>) => unknown> = {
    'server.info': serverInfo,
    'printer.info': printerInfo,
    'printer.objects.query': (p) => klippyCall(() => query(p.objects)),
    'printer.gcode.script': (p) => klippyCall(async () => (await klipper.script(String(p.script ?? '')), 'ok')),
    'printer.print.start': (p) => klippyCall(() => (klipper.startPrint(String(p.filename ?? '')), 'ok')),
    'printer.print.pause': () => klippyCall(async () => (await klipper.pause(), 'ok')),
    'printer.print.resume': () => klippyCall(async () => (await klipper.resume(), 'ok')),
    'printer.print.cancel': () => klippyCall(async () => (await klipper.cancel(), 'ok')),
    'printer.emergency_stop': () => klippyCall(() => (klipper.shutdown('Shutdown due to webhooks request'), 'ok')),
    'printer.firmware_restart': () => (klipper.restart(), 'ok'),
    'access.oneshot_token': () => newToken(),
  };
  const newToken = (): string => {
    const token = randomBytes(20).toString('hex').toUpperCase().slice(0, 32);
    tokens.set(token, Date.now() + (opts.tokenTtlMs ?? 5000));
    return token;
  };

  // ---------------------------------------------------------------- HTTP

  const routes: Record<string, string> = {
    'GET /server/info': 'server.info',
    'GET /printer/info': 'printer.info',
    'GET /printer/objects/query': 'printer.objects.query',
    'POST /printer/objects/query': 'printer.objects.query',
    'POST /printer/gcode/script': 'printer.gcode.script',
    'POST /printer/print/start': 'printer.print.start',
    'POST /printer/print/pause': 'printer.print.pause',
    'POST /printer/print/resume': 'printer.print.resume',
    'POST /printer/print/cancel': 'printer.print.cancel',
    'POST /printer/emergency_stop': 'printer.emergency_stop',
    'POST /printer/firmware_restart': 'printer.firmware_restart',
    'GET /access/oneshot_token': 'access.oneshot_token',
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://standin');
    if (faults.has('html')) return sendRaw(res, 200, 'text/html', '<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>');
    if (faults.has('http_500')) return sendError(res, 500, 'Internal Server Error');
    if (!keyOk(header(req, 'x-api-key'), url.searchParams.get('token'))) return sendError(res, 401, 'Unauthorized');
    const route = `${req.method} ${url.pathname}`;
    if (route === 'POST /server/files/upload') return upload(req, res);
    const method = routes[route];
    if (!method) return sendError(res, 404, 'Not Found');
    const args: Record<string, unknown> = {};
    for (const [k, v] of url.searchParams) if (k !== 'token') args[k] = v;
    if (url.pathname === '/printer/objects/query' && req.method === 'GET') {
      args.objects = Object.fromEntries([...url.searchParams].filter(([k]) => k !== 'token').map(([k, v]) => [k, v ? v.split(',') : null]));
    }
    Object.assign(args, await readJson(req));
    const result = await methods[method]!(args);
    sendJson(res, 200, { result });
  };

  const upload = (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> =>
    new Promise((resolve, reject) => {
      const fields: Record<string, string> = {};
      let file: { name: string; data: Buffer } | null = null;
      let bb: busboy.Busboy;
      try {
        bb = busboy({ headers: req.headers, limits: { files: 1, fileSize: 512 * 1024 * 1024 } });
      } catch {
        reject(new HttpError(400, 'Bad Request: expected multipart/form-data'));
        return;
      }
      bb.on('field', (name, value) => (fields[name] = value));
      bb.on('file', (_name, stream, info) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => (file = { name: info.filename ?? '', data: Buffer.concat(chunks) }));
      });
      bb.on('error', reject);
      bb.on('close', () => {
        try {
          const root = fields.root ?? 'gcodes';
          if (root !== 'gcodes') throw new HttpError(400, `Invalid root request: ${root}`);
          if (!file) throw new HttpError(400, 'No file name specifed in upload form');
          const f: { name: string; data: Buffer } = file;
          const name = [fields.path, f.name].filter(Boolean).join('/').replace(/^\/+/, '');
          if (name.split('/').includes('..')) throw new HttpError(400, 'Cannot write to path outside of root');
          klipper.saveFile(name, f.data);
          let printStarted = false;
          if (fields.print === 'true') {
            klipper.startPrint(name);
            printStarted = true;
          }
          res.setHeader('Location', `/server/files/gcodes/${encodeURI(name)}`);
          // Moonraker's upload endpoint is registered unwrapped: its answer is the bare object, no `result` around it
          // (file_manager.md, "File upload"; the recording in test/network/recorded/ shows the real one).
          sendJson(res, 201, {
            item: { path: name, root: 'gcodes', modified: Date.now() / 1000, size: f.data.length, permissions: 'rw' },
            print_started: printStarted,
            print_queued: false,
            action: 'create_file',
          });
          resolve();
        } catch (err) {
          reject(err);
        }
      });
      req.pipe(bb);
    });

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    handle(req, res).catch((err: Error) => {
      if (res.headersSent) return res.destroy();
      if (err instanceof HttpError) sendError(res, err.status, err.message);
      else if (err instanceof GcodeError) sendError(res, 400, err.message);
      else sendError(res, 500, err.message);
    });
  };
  const server = opts.tls ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, onRequest) : http.createServer(onRequest);

  // ---------------------------------------------------------------- websocket

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://standin');
    if (url.pathname !== '/websocket' || faults.has('drop_socket')) {
      socket.destroy();
      return;
    }
    // As Moonraker: the upgrade is accepted either way; an unauthenticated connection must identify with the key.
    const authed = apiKey === null || keyOk(header(req, 'x-api-key'), url.searchParams.get('token'));
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn: Conn = { ws, authed, subscription: null, sent: {} };
      conns.add(conn);
      if (faults.has('half_close')) (ws as unknown as { _socket: { pause(): void } })._socket.pause();
      ws.on('close', () => conns.delete(conn));
      ws.on('error', () => conns.delete(conn));
      ws.on('message', (data) => void rpc(conn, data.toString()));
    });
  });

  const rpc = async (conn: Conn, text: string): Promise<void> => {
    if (faults.has('half_close')) return;
    let msg: { method?: unknown; params?: unknown; id?: unknown };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      conn.ws.send(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null }));
      return;
    }
    const id = typeof msg.id === 'number' || typeof msg.id === 'string' ? msg.id : null;
    const params = (msg.params && typeof msg.params === 'object' ? msg.params : {}) as Record<string, unknown>;
    const reply = (body: Record<string, unknown>): void => {
      if (id !== null && conn.ws.readyState === conn.ws.OPEN) conn.ws.send(JSON.stringify({ jsonrpc: '2.0', ...body, id }));
    };
    const method = String(msg.method);
    try {
      if (method === 'server.connection.identify') {
        if (!conn.authed) {
          if (apiKey !== null && typeof params.api_key === 'string' && keyOk(params.api_key, null)) conn.authed = true;
          else throw new HttpError(401, 'Unauthorized');
        }
        reply({ result: { connection_id: Math.floor(Math.random() * 2 ** 31) } });
        return;
      }
      if (!conn.authed) throw new HttpError(401, 'Unauthorized');
      if (method === 'printer.objects.subscribe') {
        const spec = normalizeSpec(params.objects);
        conn.subscription = spec;
        const result = await klippyCall(() => query(spec));
        conn.sent = structuredClone(result.status as Conn['sent']);
        reply({ result });
        return;
      }
      const fn = methods[method];
      if (!fn) throw new HttpError(404, `Method not found: ${method}`);
      reply({ result: await fn(params) });
    } catch (err) {
      const status = err instanceof HttpError ? err.status : err instanceof GcodeError ? 400 : 500;
      // Moonraker's JSON-RPC codes: 404 -> -32601, 401 -> -32602, others as the HTTP status.
      const code = status === 404 ? -32601 : status === 401 ? -32602 : status;
      reply({ error: { code, message: (err as Error).message } });
    }
  };

  // What changed since the last notification, per subscriber (Klipper batches its reports the same way).
  const ticker = setInterval(() => {
    if (conns.size === 0 || klipper.klippy !== 'ready' || faults.has('half_close')) return;
    const all = klipper.objects();
    for (const c of conns) {
      if (!c.authed || !c.subscription) continue;
      const now = pick(all, c.subscription);
      const delta = diff(c.sent, now);
      if (Object.keys(delta).length === 0) continue;
      c.sent = structuredClone(now) as Conn['sent'];
      c.ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notify_status_update', params: [delta, eventtime()] }));
    }
  }, opts.statusIntervalMs ?? 250);

  const setFault = (name: MoonrakerFault, on: boolean, message?: string): void => {
    if (!MOONRAKER_FAULTS.includes(name)) throw new Error(`unknown Moonraker stand-in fault "${name}" (known: ${MOONRAKER_FAULTS.join(', ')})`);
    const was = faults.has(name);
    if (on) faults.add(name);
    else faults.delete(name);
    if (name === 'drop_socket' && on) for (const c of conns) c.ws.terminate();
    if (name === 'garbage' && on) for (const c of conns) c.ws.send('\u0000<html>not json');
    if (name === 'half_close') {
      for (const c of conns) {
        const s = (c.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
        if (on) s.pause();
        else s.resume();
      }
    }
    if (name === 'klipper_shutdown') {
      if (on) klipper.shutdown(message ?? 'Heater extruder not heating at expected rate');
      else if (was) klipper.restart();
    }
    if (name === 'klippy_disconnected') {
      if (on) klipper.disconnect();
      else if (was) klipper.restart();
    }
  };
  for (const f of opts.faults ?? []) setFault(f, true);

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${opts.tls ? 'moonraker+https' : 'moonraker'}://${host}:${port}`,
    port,
    printer: klipper.printer,
    klipper,
    setFault,
    startExternalPrint(name, gcode) {
      klipper.saveFile(name, typeof gcode === 'string' ? Buffer.from(gcode) : gcode);
      klipper.startPrint(name);
    },
    async close() {
      clearInterval(ticker);
      for (const c of conns) c.ws.terminate();
      wss.close();
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      klipper.close();
    },
  };
}

// ---------------------------------------------------------------- small helpers

function header(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function sendRaw(res: http.ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  sendRaw(res, status, 'application/json; charset=UTF-8', JSON.stringify(body));
}

/** Moonraker's error shape: {"error": {"code", "message"}} with the HTTP status. */
function sendError(res: http.ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { code: status, message } });
}

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  if (chunks.length === 0) return {};
  const text = Buffer.concat(chunks).toString('utf8');
  if (!/json/i.test(String(req.headers['content-type']))) return {};
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    throw new HttpError(400, 'Malformed JSON body');
  }
}

function normalizeSpec(objects: unknown): Record<string, string[] | null> {
  const spec: Record<string, string[] | null> = {};
  if (!objects || typeof objects !== 'object') return spec;
  for (const [k, v] of Object.entries(objects as Record<string, unknown>)) spec[k] = Array.isArray(v) ? v.map(String) : null;
  return spec;
}

/** The requested objects and fields; unknown ones are left out, as Klipper does. */
function pick(all: Record<string, Record<string, unknown>>, spec: Record<string, string[] | null>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, fields] of Object.entries(spec)) {
    const obj = all[name];
    if (!obj) continue;
    out[name] = fields === null ? { ...obj } : Object.fromEntries(fields.filter((f) => f in obj).map((f) => [f, obj[f]]));
  }
  return out;
}

function diff(prev: Record<string, Record<string, unknown>>, now: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, obj] of Object.entries(now)) {
    const before = prev[name] ?? {};
    for (const [k, v] of Object.entries(obj)) {
      if (JSON.stringify(before[k]) !== JSON.stringify(v)) (out[name] ??= {})[k] = v;
    }
  }
  return out;
}
