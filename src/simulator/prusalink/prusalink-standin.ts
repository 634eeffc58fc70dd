// A PrusaLink stand-in on 127.0.0.1: the v1 API subset the driver uses, answering as Prusa-Firmware-Buddy does (checked
// against its lib/WUI sources: no job in FINISHED/STOPPED/BUSY, Digest without qop), with Prusa-Link's (Python) X-Api-Key
// refusal, backed by a VirtualPrinter whose print host runs the uploaded files, with fault switches.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { isBgcode, plainGcodeOf } from '../../protocol/bgcode-format.js';
import { digestResponse, parseDigestAuthorization, type DigestAlgorithm } from '../../protocol/http-digest.js';
import { DEFAULT_SIMULATOR_OPTIONS, type SimulatorOptions } from '../simulator-options.js';
import { VirtualPrinter } from '../virtual-printer.js';
import { VirtualPrintHost } from './virtual-print-host.js';

/**
 * Fault switches: answer 500, answer an HTML page, answer non-JSON, refuse every credential, drop every connection,
 * firmware halt (thermal runaway; off = the board resets), PrusaLink up without its printer (status_printer.ok false),
 * crash recovery (a running print, or the next one, is BUSY with no job for `recoveryMs`, then goes on by itself and
 * the switch goes off), the state UNKNOWN in every status, and GET /api/v1/job answering 204 while the status shows a
 * print (as when the print ends between a client's two requests).
 */
export const PRUSALINK_FAULTS = ['http_500', 'html', 'garbage', 'refuse_auth', 'drop', 'firmware_error', 'printer_disconnected', 'crash_recovery', 'unknown_state', 'job_gone'] as const;
export type PrusaLinkFault = (typeof PRUSALINK_FAULTS)[number];

export interface PrusaLinkStandInOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /**
   * `user:password`: Digest auth with that login, and the password also taken as X-Api-Key (as the Buddy firmware
   * does); any other text: Prusa-Link's API key (X-Api-Key; a wrong one is answered 403); absent: no auth.
   */
  apiKey?: string;
  /**
   * Digest algorithm offered (default MD5) and whether qop=auth is offered (default false: the RFC 2069 form the
   * firmware sends, lib/WUI/nhttp/status_page.cpp).
   */
  digest?: { algorithm?: DigestAlgorithm; qop?: boolean };
  /** How long the crash_recovery fault holds a print in BUSY (default 600 ms). */
  recoveryMs?: number;
  /** Serve https with this key and certificate (PEM). */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** Faults switched on from the start. */
  faults?: PrusaLinkFault[];
  /** Virtual printer settings over the stand-in's defaults (profile prusa, native USB, no command record). */
  simulator?: Partial<SimulatorOptions>;
  /**
   * A printer takes a moment from the end of an upload to printing it (default 0 ms): it shows IDLE with no job
   * meanwhile, as the firmware does in State::PrintInit (printer_state.cpp get_print_state), after answering the upload.
   */
  startDelayMs?: number;
  /** Where uploads go (`/api/v1/files/<storage>/...`), default usb. */
  storage?: string;
}

export interface PrusaLinkStandIn {
  /** prusalink://127.0.0.1:PORT (or prusalink+https://...). */
  url: string;
  port: number;
  close(): Promise<void>;
  setFault(name: PrusaLinkFault, on: boolean): void;
  printer: VirtualPrinter;
  host: VirtualPrintHost;
  /** Uploaded files by name. */
  files: Map<string, Buffer>;
  /** HTTP requests that reached the API (a refused TLS handshake never does). */
  readonly requests: number;
  /** Requests that carried an X-Api-Key header (a secret sent in clear over http). */
  readonly apiKeyRequests: number;
  /** The WWW-Authenticate header of the last 401 (what a client is challenged with). */
  readonly lastChallenge: string | null;
  /** A print started on the printer's own screen: a file we did not upload. */
  startExternalPrint(name: string, content: Buffer): number;
}

const MAX_UPLOAD = 512 * 1024 * 1024;
const REALM = 'Printer API';

export async function startPrusaLinkStandIn(opts: PrusaLinkStandInOptions = {}): Promise<PrusaLinkStandIn> {
  const printer = new VirtualPrinter({ ...DEFAULT_SIMULATOR_OPTIONS, profile: 'prusa', baud: 0, record: false, ...opts.simulator });
  const host = new VirtualPrintHost(printer);
  const files = new Map<string, Buffer>();
  const faults = new Set<PrusaLinkFault>(opts.faults ?? []);
  const storage = opts.storage ?? 'usb';
  const startDelayMs = opts.startDelayMs ?? 0;
  let startPending = false;
  const timers = new Set<NodeJS.Timeout>();
  const nonces = new Set<string>();
  const algorithm = opts.digest?.algorithm ?? 'MD5';
  const qop = opts.digest?.qop ?? false;
  const colon = opts.apiKey?.indexOf(':') ?? -1;
  const login = opts.apiKey && colon > 0 ? { user: opts.apiKey.slice(0, colon), password: opts.apiKey.slice(colon + 1) } : null;

  const challenge = (): string => {
    const nonce = randomBytes(16).toString('hex');
    nonces.add(nonce);
    if (nonces.size > 1000) nonces.delete(nonces.values().next().value!);
    return `Digest realm="${REALM}", nonce="${nonce}", algorithm=${algorithm}${qop ? ', qop="auth"' : ''}`;
  };

  /** true, or how the refusal is answered. */
  const authorized = (req: http.IncomingMessage): true | 'unauthorized' | 'forbidden' => {
    if (faults.has('refuse_auth')) return 'unauthorized';
    if (!opts.apiKey) return true;
    const key = req.headers['x-api-key'];
    // Prusa-Link (web/lib/auth.py): a wrong X-Api-Key is 403; none falls to its Digest check (which this key-only
    // stand-in never passes). The firmware (nhttp/req_parser.cpp): X-Api-Key is compared with its password.
    if (!login) return key === opts.apiKey ? true : key !== undefined ? 'forbidden' : 'unauthorized';
    if (key !== undefined) return key === login.password ? true : 'unauthorized';
    return digestOk(req) ? true : 'unauthorized';
  };

  const digestOk = (req: http.IncomingMessage): boolean => {
    if (!login) return false;
    const f = parseDigestAuthorization(req.headers.authorization);
    // The firmware hashes with its one user whatever the header names (nhttp/req_parser.cpp check_digest_auth).
    if (!f || f.get('uri') !== req.url) return false;
    const nonce = f.get('nonce') ?? '';
    if (!nonces.has(nonce)) return false;
    const expected = digestResponse(
      { realm: REALM, nonce, algorithm, qop: qop ? 'auth' : null, stale: false },
      { username: login.user, password: login.password, method: req.method ?? 'GET', uri: req.url ?? '/', cnonce: f.get('cnonce') ?? '', nc: parseInt(f.get('nc') ?? '0', 16) },
    );
    return f.get('response') === expected;
  };

  const send = (res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void => {
    if (body === undefined) {
      res.writeHead(status, headers).end();
      return;
    }
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers }).end(text);
  };

  // printer_state::has_job(): only a print running or paused is shown; FINISHED, STOPPED, BUSY (crash recovery) and
  // ERROR carry no job, and GET /api/v1/job answers 204 then (link_content/prusa_link_api_v1.cpp).
  const hasJob = (): boolean => host.job !== null && (host.state === 'PRINTING' || host.state === 'PAUSED') && !faults.has('unknown_state');
  const shownState = (): string => (faults.has('unknown_state') ? 'UNKNOWN' : startPending ? 'IDLE' : host.state);

  const statusBody = (): unknown => {
    const t = printer.temperatures();
    const j = host.job;
    const jobPart = j && hasJob()
      ? { job: { id: j.id, progress: Math.floor(host.progress()), time_printing: Math.floor(host.printingMs() / 1000), time_remaining: 0 } }
      : {};
    return {
      ...jobPart,
      storage: { name: storage.toUpperCase(), path: `/${storage}`, read_only: false },
      printer: {
        state: shownState(),
        temp_nozzle: t.hotend,
        target_nozzle: t.hotendTarget,
        temp_bed: t.bed,
        target_bed: t.bedTarget,
        axis_z: 0,
        flow: 100,
        speed: 100,
        ...(host.state === 'ERROR' ? { status_printer: { ok: false, message: host.message ?? 'error' } } : {}),
        ...(faults.has('printer_disconnected') ? { status_printer: { ok: false, message: 'Printer is not connected' } } : {}),
      },
    };
  };

  const jobBody = (): unknown => {
    const j = host.job!;
    return {
      id: j.id,
      state: host.state,
      progress: Math.floor(host.progress()),
      time_printing: Math.floor(host.printingMs() / 1000),
      time_remaining: 0,
      file: { name: j.name.slice(0, 8).toUpperCase() + '.BGC', display_name: j.name, path: `/${storage}`, display_path: `/${storage.toUpperCase()}`, size: j.size, m_timestamp: Math.floor(j.startedAt / 1000) },
    };
  };

  const readBody = (req: http.IncomingMessage): Promise<Buffer | null> =>
    new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_UPLOAD) chunks.push(c);
      });
      req.on('end', () => resolve(size <= MAX_UPLOAD ? Buffer.concat(chunks) : null));
      req.on('error', () => resolve(null));
    });

  /** The crash_recovery fault: a running print holds in BUSY for recoveryMs, then goes on and the fault is spent. */
  const recoverSoon = (): void => {
    if (host.state !== 'PRINTING') return;
    host.recover(true);
    const t = setTimeout(() => {
      timers.delete(t);
      faults.delete('crash_recovery');
      host.recover(false);
    }, opts.recoveryMs ?? 600);
    timers.add(t);
  };

  let requests = 0;
  let apiKeyRequests = 0;
  let lastChallenge: string | null = null;
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    requests++;
    if (req.headers['x-api-key'] !== undefined) apiKeyRequests++;
    // Switched on before a print (or from the command line): the print goes into recovery once it runs.
    if (faults.has('crash_recovery') && host.state === 'PRINTING') recoverSoon();
    if (faults.has('drop')) {
      req.socket.destroy();
      return;
    }
    const auth = authorized(req);
    if (auth !== true) {
      req.resume();
      if (auth === 'forbidden') return send(res, 403, 'Bad X-Api-Key.');
      const header = login
        ? req.headers['x-api-key'] !== undefined ? `ApiKey realm="${REALM}"` : challenge()
        : `Digest realm="Administrator", nonce="${randomBytes(16).toString('hex')}"`;
      lastChallenge = opts.apiKey ? header : null;
      send(res, 401, 'Unauthorized', opts.apiKey ? { 'WWW-Authenticate': header } : {});
      return;
    }
    if (faults.has('http_500')) return send(res, 500, 'Internal Server Error');
    if (faults.has('html')) {
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>');
      return;
    }
    if (faults.has('garbage')) {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"printer": {"state": "PRI');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const m = req.method ?? 'GET';
    if (m === 'GET' && path === '/api/version') {
      return send(res, 200, { api: '2.0.0', version: '2.1.2', printer: '1.0.0', text: 'PrusaLink', firmware: '6.2.0+9000', sdk: '0.8.0', capabilities: { 'upload-by-put': true } });
    }
    if (m === 'GET' && path === '/api/v1/info') {
      return send(res, 200, { name: 'stand-in', location: '', farm_mode: false, nozzle_diameter: 0.4, min_extrusion_temp: 170, serial: 'SIM0000000001', hostname: '127.0.0.1', mmu: false });
    }
    if (m === 'GET' && path === '/api/v1/status') return send(res, 200, statusBody());
    if (m === 'GET' && path === '/api/v1/job') return hasJob() && !faults.has('job_gone') ? send(res, 200, jobBody()) : send(res, 204);
    const file = new RegExp(`^/api/v1/files/${storage}/(.+)$`).exec(path);
    if (m === 'PUT' && file) {
      const name = decodeURIComponent(file[1]!);
      const body = await readBody(req);
      if (body === null) return send(res, 413, 'Payload Too Large');
      const expected = Number(req.headers['content-length']);
      if (Number.isFinite(expected) && expected !== body.length) return send(res, 400, 'Incomplete upload');
      if (files.has(name) && req.headers.overwrite !== '?1') return send(res, 409, 'File already exists');
      const print = req.headers['print-after-upload'] === '?1';
      // A binary G-code prints its decoded G-code (as the printer's firmware does); progress is the share of that.
      let printable = body;
      if (isBgcode(body)) {
        try {
          printable = Buffer.from(plainGcodeOf(body), 'latin1');
        } catch (err) {
          return send(res, 415, `Unsupported binary G-code: ${(err as Error).message}`);
        }
      }
      // The firmware moves the upload into place first and only then asks to print it (nhttp/gcode_upload.cpp
      // PutTransfer::done): a busy printer answers 409 with the file stored.
      files.set(name, body);
      if (print && (!host.canStart || startPending)) return send(res, 409, "Can't print right now");
      if (print && startDelayMs > 0) {
        startPending = true;
        const t = setTimeout(() => {
          startPending = false;
          if (host.canStart) host.start(name, printable, body.length);
        }, startDelayMs);
        timers.add(t);
      } else if (print) host.start(name, printable, body.length);
      return send(res, 201);
    }
    if (m === 'DELETE' && file) {
      const name = decodeURIComponent(file[1]!);
      if (!files.has(name)) return send(res, 404, 'Not Found');
      // The firmware refuses to delete the file it prints (link_content/prusa_api_helpers.cpp delete_file).
      const inPrint = host.job?.name === name && (host.state === 'PRINTING' || host.state === 'PAUSED' || host.state === 'BUSY');
      if (inPrint) return send(res, 409, 'File is busy');
      files.delete(name);
      return send(res, 204);
    }
    const action = /^\/api\/v1\/job\/(\d+)(?:\/(pause|resume))?$/.exec(path);
    if (action && ((m === 'PUT' && action[2]) || (m === 'DELETE' && !action[2]))) {
      if (!host.job || host.job.id !== Number(action[1])) return send(res, 404, 'Not Found');
      const verb = action[2] ?? 'stop';
      const allowed = verb === 'pause' ? host.state === 'PRINTING' : verb === 'resume' ? host.state === 'PAUSED' : host.state === 'PRINTING' || host.state === 'PAUSED';
      if (!allowed) return send(res, 409, `Cannot ${verb} in state ${host.state}`);
      if (verb === 'pause') host.pause();
      else if (verb === 'resume') host.resume();
      else host.stop();
      return send(res, 204);
    }
    send(res, 404, 'Not Found');
  };

  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, 'Internal Server Error');
    });
  };
  const server = opts.tls ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, listener) : http.createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const setFault = (name: PrusaLinkFault, on: boolean): void => {
    if (on) faults.add(name);
    else faults.delete(name);
    if (name === 'firmware_error') host.firmwareError(on);
    if (name === 'crash_recovery') {
      if (on) recoverSoon();
      else host.recover(false);
    }
  };
  if (faults.has('firmware_error')) host.firmwareError(true);
  return {
    get requests() {
      return requests;
    },
    get apiKeyRequests() {
      return apiKeyRequests;
    },
    get lastChallenge() {
      return lastChallenge;
    },
    url: `${opts.tls ? 'prusalink+https' : 'prusalink'}://127.0.0.1:${port}`,
    port,
    printer,
    host,
    files,
    setFault,
    startExternalPrint: (name, content) => {
      if (!host.canStart) throw new Error(`the printer is ${host.state}`);
      files.set(name, content);
      return host.start(name, content);
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      host.close();
      printer.close();
    },
  };
}
