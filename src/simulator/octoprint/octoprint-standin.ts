// An OctoPrint stand-in on 127.0.0.1, written from OctoPrint's API documentation: the REST endpoints the driver uses
// and the push socket at /sockjs/websocket (SockJS's raw websocket transport: plain JSON text frames, no SockJS
// envelope), backed by a VirtualPrinter. Fault switches make it misbehave the ways a real one can.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { parseSimulatorOptions, type SimulatorOptions } from '../simulator-options.js';
import type { VirtualPrinter } from '../virtual-printer.js';
import { parseMultipart } from './multipart-form.js';
import { OctoPrintVirtualHost, hostFile, type HostState } from './octoprint-virtual-host.js';

export const OCTOPRINT_FAULTS = ['drop_socket', 'garbage_socket', 'half_close_socket', 'http_500', 'html', 'refuse_key', 'printer_disconnected', 'firmware_error'] as const;
export type OctoPrintFault = (typeof OCTOPRINT_FAULTS)[number];

export interface OctoPrintStandInOptions {
  port?: number;
  host?: string;
  apiKey: string;
  faults?: Partial<Record<OctoPrintFault, boolean>>;
  /** The virtual printer's settings (profile marlin by default; `speed` makes prints quicker). */
  simulator?: Partial<SimulatorOptions> | Record<string, string>;
  /** Serve https with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
  /** How often `current` is pushed (OctoPrint: at most every 500 ms). Default 500. */
  pushIntervalMs?: number;
  log?: (line: string) => void;
}

export interface OctoPrintStandIn {
  url: string;
  port: number;
  close(): Promise<void>;
  setFault(name: OctoPrintFault, on: boolean): void;
  /** The current VirtualPrinter (null while the printer is disconnected). */
  readonly printer: VirtualPrinter | null;
  readonly host: OctoPrintVirtualHost;
  /** Starts a print as from OctoPrint's own page: uploads `name` and prints it. False when OctoPrint would refuse. */
  startExternalPrint(name: string, content: string | Buffer): boolean;
  /** Files uploaded so far, by name. */
  readonly files: ReadonlyMap<string, Buffer>;
}

const VERSION = '1.10.3';

export async function startOctoPrintStandIn(opts: OctoPrintStandInOptions): Promise<OctoPrintStandIn> {
  const faults = new Map<OctoPrintFault, boolean>(Object.entries(opts.faults ?? {}) as Array<[OctoPrintFault, boolean]>);
  const log = opts.log ?? (() => undefined);
  const simulator = toSimulatorOptions(opts.simulator);
  const host = new OctoPrintVirtualHost(simulator);
  const files = new Map<string, Buffer>();
  const sessions = new Set<string>();
  const sockets = new Set<WebSocket>();
  const authed = new WeakSet<WebSocket>();
  const on = (f: OctoPrintFault): boolean => faults.get(f) === true;

  if (!on('printer_disconnected')) host.connectPrinter();

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    route(req, res).catch((err: Error) => {
      log(`octoprint stand-in: ${req.method} ${req.url}: ${err.message}`);
      if (!res.headersSent) json(res, 500, { error: 'internal error' });
    });
  };
  const server: Server = opts.tls ? createHttpsServer({ key: opts.tls.key, cert: opts.tls.cert }, handler) : createHttpServer(handler);
  const wss = new WebSocketServer({ noServer: true });
  const rawSockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    rawSockets.add(s);
    s.on('close', () => rawSockets.delete(s));
  });

  server.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path !== '/sockjs/websocket' || on('drop_socket') || on('http_500') || on('html')) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => openSocket(ws));
  });

  function openSocket(ws: WebSocket): void {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('error', () => undefined);
    if (on('garbage_socket')) {
      ws.send('o'); // a SockJS envelope where a raw frame belongs, then nonsense
      ws.send('<html>not json</html>');
      return;
    }
    send(ws, { connected: { apikey: 'ui-key', version: VERSION, display_version: VERSION, branch: 'master', plugin_hash: 'x', config_hash: 'y' } });
    ws.on('message', (data) => {
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(String(data)) as Record<string, unknown>;
      } catch {
        return;
      }
      if (typeof msg.auth === 'string') {
        const session = msg.auth.split(':')[1] ?? '';
        // Without a valid session OctoPrint pushes no state (the STATUS permission is missing).
        if (sessions.has(session) && !on('refuse_key')) {
          authed.add(ws);
          send(ws, { history: currentPayload(false) });
        }
      }
    });
  }

  function send(ws: WebSocket, msg: unknown): void {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
  }

  host.onEvent((e) => {
    for (const ws of sockets) if (authed.has(ws)) send(ws, { event: e });
    // The state change that goes with an event is pushed at once, as OctoPrint does.
    pushCurrent();
  });

  function pushCurrent(): void {
    const payload = currentPayload(true);
    for (const ws of sockets) if (authed.has(ws)) send(ws, { current: payload });
  }
  const pushTimer = setInterval(pushCurrent, opts.pushIntervalMs ?? 500);

  function stateText(): string {
    if (host.state === 'Error') return host.errorText ? `Error: ${host.errorText}` : 'Error';
    return host.state;
  }

  function stateObject(): { text: string; flags: Record<string, boolean>; error: string } {
    const s: HostState = host.state;
    const printing = s === 'Printing' || s === 'Pausing' || s === 'Cancelling';
    return {
      text: stateText(),
      flags: {
        operational: host.operational,
        printing,
        paused: s === 'Paused',
        pausing: s === 'Pausing',
        cancelling: s === 'Cancelling',
        sdReady: false,
        error: s === 'Error',
        ready: s === 'Operational',
        closedOrError: s === 'Offline' || s === 'Error',
        finishing: false,
        resuming: false,
      },
      error: host.errorText ?? '',
    };
  }

  function jobObject(): Record<string, unknown> {
    const f = host.file;
    return {
      file: f ? { name: f.name, path: f.name, display: f.name, origin: 'local', size: f.size, date: f.date } : { name: null, path: null, origin: null, size: null, date: null },
      estimatedPrintTime: null,
      filament: null,
      user: f ? 'printfarm' : null,
    };
  }

  function progressObject(): Record<string, unknown> {
    const f = host.file;
    const active = f !== null && host.printStartedAt !== null;
    return {
      completion: active && f.size > 0 ? (host.filepos / f.size) * 100 : null,
      filepos: active ? host.filepos : null,
      printTime: host.printTime(Date.now()),
      printTimeLeft: null,
      // OctoPrint 1.9.3 names the origin key printTimeOrigin while nothing prints, printTimeLeftOrigin while it does
      // (test/network/recorded/octoprint.json).
      [active ? 'printTimeLeftOrigin' : 'printTimeOrigin']: null,
    };
  }

  function currentPayload(takeLogs: boolean): Record<string, unknown> {
    const logs = takeLogs ? host.logs.splice(0) : [];
    const t = host.temps;
    return {
      state: stateObject(),
      job: jobObject(),
      progress: progressObject(),
      currentZ: null,
      offsets: {},
      temps: host.operational ? [{ time: Math.floor(Date.now() / 1000), tool0: { ...t.tool0 }, bed: { ...t.bed } }] : [],
      logs,
      messages: [],
      resends: { count: 0, transmitted: 0, ratio: 0 },
    };
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const body = await readBody(req);
    if (on('html')) return html(res, 200);
    if (on('http_500')) return json(res, 500, { error: 'Internal Server Error' });
    const key = req.headers['x-api-key'] ?? url.searchParams.get('apikey');
    // A missing or wrong key makes the request anonymous, and anonymous requests are refused.
    if (key !== opts.apiKey || on('refuse_key')) return json(res, 403, { error: 'You don\'t have the permission to access the requested resource.' });
    const route = `${req.method} ${url.pathname}`;
    switch (route) {
      case 'GET /api/version':
        return json(res, 200, { api: '0.1', server: VERSION, text: `OctoPrint ${VERSION}` });
      case 'POST /api/login': {
        const data = parseJson(body);
        if (!data || data.passive === undefined) return json(res, 400, { error: 'Neither user and pass attributes nor passive flag present' });
        const session = randomBytes(8).toString('hex');
        sessions.add(session);
        return json(res, 200, { name: 'printfarm', active: true, admin: true, groups: ['admins', 'users'], permissions: [], session, _is_external_client: false });
      }
      case 'GET /api/connection':
        return json(res, 200, {
          current: { state: stateText(), port: host.printer ? 'VIRTUAL' : null, baudrate: host.printer ? 250000 : null, printerProfile: '_default' },
          options: { ports: ['VIRTUAL'], baudrates: [250000, 115200], printerProfiles: [{ id: '_default', name: 'Default' }], portPreference: 'VIRTUAL', baudratePreference: 250000, printerProfilePreference: '_default' },
        });
      case 'POST /api/connection':
        return connectionCommand(res, parseJson(body));
      case 'GET /api/printer': {
        if (!host.operational) return json(res, 409, { error: 'Printer is not operational' });
        const t = host.temps;
        return json(res, 200, { temperature: { tool0: { ...t.tool0, offset: 0 }, bed: { ...t.bed, offset: 0 } }, sd: { ready: false }, state: stateObject() });
      }
      case 'GET /api/job':
        return json(res, 200, { job: jobObject(), progress: progressObject(), state: stateText(), ...(host.errorText ? { error: host.errorText } : {}) });
      case 'POST /api/job':
        return jobCommand(res, parseJson(body));
      case 'POST /api/printer/command': {
        if (!host.operational) return json(res, 409, { error: 'Printer is not operational' });
        const data = parseJson(body);
        const list = Array.isArray(data?.commands) ? data.commands : typeof data?.command === 'string' ? [data.command] : null;
        if (!list || !list.every((c): c is string => typeof c === 'string')) return json(res, 400, { error: 'No command or commands given' });
        for (const c of list) host.queueCommand(c);
        return noContent(res);
      }
      case 'POST /api/files/local':
        return upload(req, res, body);
      default:
        return json(res, 404, { error: 'The requested URL was not found on the server.' });
    }
  }

  /** The Connection panel's connect and disconnect (OctoPrint answers 204 to both, 400 to anything else). */
  function connectionCommand(res: ServerResponse, data: Record<string, unknown> | null): void {
    if (data?.command === 'connect') host.connectPrinter();
    else if (data?.command === 'disconnect') host.disconnectPrinter();
    else return json(res, 400, { error: 'command must be one of connect, disconnect, fake_ack' });
    return noContent(res);
  }

  function jobCommand(res: ServerResponse, data: Record<string, unknown> | null): void {
    if (!host.operational) return json(res, 409, { error: 'Printer is not operational' });
    const now = Date.now();
    const active = host.printing;
    switch (data?.command) {
      case 'start':
        if (active) return json(res, 409, { error: 'Printer already has an active print job, did you mean \'restart\'?' });
        if (!host.startPrint(now)) return json(res, 409, { error: 'Printer is not ready' });
        return noContent(res);
      case 'pause': {
        if (!active) return json(res, 409, { error: 'Printer is neither printing nor paused, \'pause\' command cannot be performed' });
        const action = data.action ?? 'toggle';
        if (action === 'pause' || (action === 'toggle' && host.state === 'Printing')) host.pause(now);
        else if (action === 'resume' || action === 'toggle') host.resume(now);
        else return json(res, 400, { error: 'Unknown action' });
        return noContent(res);
      }
      case 'cancel':
        if (!active) return json(res, 409, { error: 'Printer is neither printing nor paused, \'cancel\' command cannot be performed' });
        host.cancel(now);
        return noContent(res);
      default:
        return json(res, 400, { error: 'Unknown command' });
    }
  }

  function upload(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const parts = parseMultipart(body, String(req.headers['content-type'] ?? ''));
    const file = parts?.find((p) => p.name === 'file' && p.filename);
    if (!parts || !file || !file.filename) return json(res, 400, { error: 'No file to upload and no folder to create' });
    const field = (n: string): boolean => ['true', 'yes', '1', 'on'].includes(parts.find((p) => p.name === n)?.data.toString().trim().toLowerCase() ?? '');
    const wantPrint = field('print');
    if (wantPrint && (host.state !== 'Operational')) return json(res, 409, { error: 'Printer is not operational or already printing, cannot directly start printing' });
    const name = file.filename.replace(/[/\\]/g, '_');
    files.set(name, file.data);
    if (field('select') || wantPrint) host.select(hostFile(name, file.data, Math.floor(Date.now() / 1000)));
    if (wantPrint) host.startPrint(Date.now());
    res.setHeader('Location', `/api/files/local/${encodeURIComponent(name)}`);
    return json(res, 201, { files: { local: { name, path: name, origin: 'local', refs: { resource: `/api/files/local/${name}` } } }, done: true, effectiveSelect: field('select') || wantPrint, effectivePrint: wantPrint });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;

  const standIn: OctoPrintStandIn = {
    url: `${opts.tls ? 'octoprint+https' : 'octoprint'}://127.0.0.1:${port}`,
    port,
    host,
    files,
    get printer() {
      return host.printer;
    },
    setFault(name, value) {
      faults.set(name, value);
      if (name === 'drop_socket' && value) for (const ws of sockets) ws.terminate();
      if (name === 'half_close_socket' && value) {
        // The server stops sending and shuts its half of the TCP connection, without a websocket close frame.
        for (const ws of sockets) (ws as unknown as { _socket: Socket })._socket.end();
      }
      if (name === 'printer_disconnected') {
        if (value) host.disconnectPrinter();
        else if (!host.printer) host.connectPrinter();
      }
      if (name === 'firmware_error') {
        if (value) host.firmwareError();
        else host.connectPrinter(); // OctoPrint reconnects: a fresh board
      }
    },
    startExternalPrint(name, content) {
      if (host.state !== 'Operational') return false;
      const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
      files.set(name, data);
      host.select(hostFile(name, data, Math.floor(Date.now() / 1000)));
      return host.startPrint(Date.now());
    },
    async close() {
      clearInterval(pushTimer);
      for (const ws of sockets) ws.terminate();
      wss.close();
      host.close();
      for (const s of rawSockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return standIn;
}

function toSimulatorOptions(given: OctoPrintStandInOptions['simulator']): SimulatorOptions {
  const base = parseSimulatorOptions({ baud: '0', record: '0' });
  if (!given) return base;
  const values = Object.values(given);
  if (values.every((v) => typeof v === 'string')) return parseSimulatorOptions({ baud: '0', record: '0', ...(given as Record<string, string>) });
  return { ...base, ...(given as Partial<SimulatorOptions>) };
}

const MAX_BODY = 256 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) throw new Error('request body too large');
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

function parseJson(body: Buffer): Record<string, unknown> | null {
  try {
    const v = JSON.parse(body.toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const data = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) });
  res.end(data);
}

function noContent(res: ServerResponse): void {
  // Flask labels even an empty answer text/plain.
  res.writeHead(204, { 'Content-Type': 'text/plain' });
  res.end();
}

function html(res: ServerResponse, status: number): void {
  const page = '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>';
  res.writeHead(status, { 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(page) });
  res.end(page);
}
