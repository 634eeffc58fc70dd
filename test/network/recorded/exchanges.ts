// The calls our network drivers make, as one ordered script per kind: run against the real program it is recorded
// (scripts/record-peers.ts), run against our stand-in it is compared with that recording (recorded-contract.test.ts).
import WebSocket from 'ws';

export interface Exchange {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  json?: unknown;
  /** A multipart upload: text fields, then the file. */
  upload?: { fields: Record<string, string>; filename: string; content: string };
  /** Replaces the kind's key for this call (a wrong key); null sends none. */
  key?: string | null;
  /** Pause after the answer, so the printer moves on (a print starts, a pause lands). */
  settleMs?: number;
  /** Paths (a.b.c) whose values, not only their types, must be the same in both answers. */
  same?: string[];
}

export interface Answer {
  status: number;
  /** Headers a driver reads: the media type without parameters, and Location. */
  headers: Record<string, string>;
  body: unknown;
}

export interface Recording {
  program: string;
  recorded_with: string;
  exchanges: Array<{ name: string; request: Omit<Exchange, 'name' | 'settleMs' | 'same'>; same: string[]; answer: Answer }>;
  /** JSON-RPC over the websocket (Moonraker): method, params, and the answer's result or error, masked. */
  socket?: Array<{ name: string; method: string; params: unknown; answer: unknown }>;
  /** One of each notification seen on the websocket while the exchanges ran, masked. */
  notifications?: Record<string, unknown>;
}

/** A short part: dwells so a print is still running while pause, resume and cancel arrive. */
const PART = ['; recorded exchange part', 'G90', 'M83', 'G4 P1500', 'G1 X10 Y10 F3000', 'G4 P1500', 'G1 X20 Y10 F3000', 'G4 P1500', 'G1 X10 Y10 F3000', 'G4 P1500', 'G4 P1500', 'G4 P1500', 'G4 P1500', 'G4 P1500', 'G4 P1500', 'G4 P1500'].join('\n') + '\n';

export const MOONRAKER_EXCHANGES: Exchange[] = [
  { name: 'server info', method: 'GET', path: '/server/info', same: ['result.klippy_state', 'result.klippy_connected'] },
  { name: 'printer info', method: 'GET', path: '/printer/info', same: ['result.state'] },
  { name: 'oneshot token', method: 'GET', path: '/access/oneshot_token' },
  {
    name: 'query the subscribed objects',
    method: 'POST',
    path: '/printer/objects/query',
    json: { objects: { webhooks: null, print_stats: null, virtual_sdcard: null, extruder: null, heater_bed: null, display_status: null, toolhead: null } },
    same: ['result.status.print_stats.state', 'result.status.webhooks.state'],
  },
  { name: 'query with a GET query string', method: 'GET', path: '/printer/objects/query?print_stats=state,filename&webhooks', same: ['result.status.print_stats.state'] },
  { name: 'console M105', method: 'POST', path: '/printer/gcode/script', json: { script: 'M105' }, same: ['result'] },
  { name: 'console unknown command', method: 'POST', path: '/printer/gcode/script', json: { script: 'NOT_A_COMMAND' } },
  {
    name: 'upload',
    method: 'POST',
    path: '/server/files/upload',
    upload: { fields: { root: 'gcodes' }, filename: 'recorded-part.gcode', content: PART },
    same: ['item.path', 'item.root', 'action', 'print_started', 'print_queued'],
  },
  { name: 'start a missing file', method: 'POST', path: '/printer/print/start', json: { filename: 'no-such-file.gcode' } },
  { name: 'start', method: 'POST', path: '/printer/print/start', json: { filename: 'recorded-part.gcode' }, settleMs: 1500, same: ['result'] },
  { name: 'query while printing', method: 'POST', path: '/printer/objects/query', json: { objects: { print_stats: null, virtual_sdcard: null } }, same: ['result.status.print_stats.state', 'result.status.print_stats.filename'] },
  { name: 'start while printing', method: 'POST', path: '/printer/print/start', json: { filename: 'recorded-part.gcode' } },
  { name: 'pause', method: 'POST', path: '/printer/print/pause', settleMs: 1000, same: ['result'] },
  { name: 'query while paused', method: 'POST', path: '/printer/objects/query', json: { objects: { print_stats: null } }, same: ['result.status.print_stats.state'] },
  { name: 'resume', method: 'POST', path: '/printer/print/resume', settleMs: 1000, same: ['result'] },
  { name: 'cancel', method: 'POST', path: '/printer/print/cancel', settleMs: 1500, same: ['result'] },
  { name: 'query after cancel', method: 'POST', path: '/printer/objects/query', json: { objects: { print_stats: null } }, same: ['result.status.print_stats.state'] },
  { name: 'an unknown endpoint', method: 'GET', path: '/printer/no_such_endpoint' },
  { name: 'upload with a printing start', method: 'POST', path: '/server/files/upload', upload: { fields: { print: 'true' }, filename: 'recorded-start.gcode', content: PART }, settleMs: 1500, same: ['item.path', 'action', 'print_started'] },
  { name: 'cancel the upload-started print', method: 'POST', path: '/printer/print/cancel', settleMs: 1500, same: ['result'] },
];

/** The application key the peers kit seeds into OctoPrint (its README); the stand-in is started with the same. */
export const OCTOPRINT_KEY = 'A99C0DE0A99C0DE0A99C0DE0A99C0DE0';

export const OCTOPRINT_EXCHANGES: Exchange[] = [
  { name: 'version', method: 'GET', path: '/api/version', same: ['api'] },
  { name: 'version with a wrong key', method: 'GET', path: '/api/version', key: '0123456789ABCDEF0123456789ABCDEF' },
  { name: 'connection', method: 'GET', path: '/api/connection', same: ['current.state'] },
  { name: 'printer', method: 'GET', path: '/api/printer', same: ['state.text', 'state.flags.operational', 'state.flags.printing'] },
  { name: 'job while idle', method: 'GET', path: '/api/job', same: ['state'] },
  { name: 'passive login', method: 'POST', path: '/api/login', json: { passive: true } },
  { name: 'console M115', method: 'POST', path: '/api/printer/command', json: { commands: ['M115'] } },
  { name: 'cancel while idle', method: 'POST', path: '/api/job', json: { command: 'cancel' } },
  {
    name: 'upload, select and print',
    method: 'POST',
    path: '/api/files/local',
    upload: { fields: { select: 'true', print: 'true' }, filename: 'recorded-part.gcode', content: PART },
    settleMs: 2500,
    same: ['done', 'files.local.name', 'files.local.origin'],
  },
  { name: 'job while printing', method: 'GET', path: '/api/job', same: ['state', 'job.file.name'] },
  { name: 'printer while printing', method: 'GET', path: '/api/printer', same: ['state.flags.printing'] },
  { name: 'pause', method: 'POST', path: '/api/job', json: { command: 'pause', action: 'pause' }, settleMs: 2500 },
  { name: 'job while paused', method: 'GET', path: '/api/job', same: ['state'] },
  { name: 'resume', method: 'POST', path: '/api/job', json: { command: 'pause', action: 'resume' }, settleMs: 1500 },
  { name: 'cancel', method: 'POST', path: '/api/job', json: { command: 'cancel' }, settleMs: 3000 },
  { name: 'job after cancel', method: 'GET', path: '/api/job', same: ['state'] },
  { name: 'an unknown endpoint', method: 'GET', path: '/api/no_such_endpoint' },
  { name: 'disconnect the printer', method: 'POST', path: '/api/connection', json: { command: 'disconnect' }, settleMs: 2000 },
  { name: 'printer while disconnected', method: 'GET', path: '/api/printer' },
  { name: 'job while disconnected', method: 'GET', path: '/api/job', same: ['state'] },
];

/** Sends one exchange to `base` and returns the answer as recorded (masked). */
export async function perform(base: string, ex: Exchange, key: string | null): Promise<Answer> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const useKey = ex.key === undefined ? key : ex.key;
  if (useKey) headers['X-Api-Key'] = useKey;
  let body: FormData | string | undefined;
  if (ex.upload) {
    const form = new FormData();
    for (const [k, v] of Object.entries(ex.upload.fields)) form.append(k, v);
    form.append('file', new Blob([ex.upload.content]), ex.upload.filename);
    body = form;
  } else if (ex.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(ex.json);
  }
  const res = await fetch(base + ex.path, { method: ex.method, headers, body, signal: AbortSignal.timeout(20_000) });
  const text = await res.text();
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = `<${text.length} bytes of ${type || 'untyped text'}>`;
  }
  const answer: Answer = { status: res.status, headers: { 'content-type': type }, body: mask(parsed) };
  const location = res.headers.get('location');
  if (location) answer.headers.location = mask(new URL(location, base).pathname) as string;
  if (ex.settleMs) await new Promise((r) => setTimeout(r, ex.settleMs));
  return answer;
}

/** Runs a kind's whole script against `base`; `onEach` sees every answer in order. */
export async function runScript(base: string, exchanges: Exchange[], key: string | null, onEach: (ex: Exchange, a: Answer) => void): Promise<void> {
  for (const ex of exchanges) onEach(ex, await perform(base, ex, key));
}

export const MOONRAKER_SOCKET_CALLS = [
  { name: 'identify', method: 'server.connection.identify', params: { client_name: 'printfarm', version: '1', type: 'other', url: 'https://github.com/printfarm' } },
  { name: 'subscribe', method: 'printer.objects.subscribe', params: { objects: { webhooks: null, print_stats: null, virtual_sdcard: null, extruder: null, heater_bed: null, display_status: null, toolhead: null } } },
  { name: 'console over the socket', method: 'printer.gcode.script', params: { script: 'M105' } },
  { name: 'an unknown method', method: 'printer.no_such_method', params: {} },
];

/**
 * Opens Moonraker's websocket, makes the driver's JSON-RPC calls, and keeps one of each notification it hears until
 * `keepOpenMs` has passed (the HTTP script runs meanwhile, so status updates and gcode responses arrive).
 */
export async function recordSocket(wsUrl: string, during: () => Promise<void>): Promise<{ calls: NonNullable<Recording['socket']>; notifications: Record<string, unknown> }> {
  const ws = new WebSocket(wsUrl);
  await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
  const pending = new Map<number, (msg: Record<string, unknown>) => void>();
  const notifications: Record<string, unknown> = {};
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as Record<string, unknown>;
    if (typeof msg.id === 'number') pending.get(msg.id)?.(msg);
    // Each notification carries only what changed: the union of all seen is the shape of that method.
    else if (typeof msg.method === 'string') notifications[msg.method] = unionShape(notifications[msg.method], mask(msg));
  });
  let id = 0;
  const call = (method: string, params: unknown): Promise<Record<string, unknown>> =>
    new Promise((resolve) => {
      const n = ++id;
      pending.set(n, resolve);
      ws.send(JSON.stringify({ jsonrpc: '2.0', method, params, id: n }));
    });
  const calls: NonNullable<Recording['socket']> = [];
  for (const c of MOONRAKER_SOCKET_CALLS) {
    const answer = await call(c.method, c.params);
    delete answer.id;
    calls.push({ ...c, answer: mask(answer) });
  }
  await during();
  ws.close();
  return { calls, notifications };
}

const VOLATILE_STRING = /\/(work|tmp|home|root)\/|^[0-9A-Z]{24,}$|^\d{4}-\d\d-\d\dT|^v?\d+\.\d+\.\d+-\d+-g[0-9a-f]+/i;

/**
 * Masks what changes between runs and machines, keeping the type: non-integer and large numbers become "<number>",
 * host paths, tokens and timestamps "<string>". Everything else (states, names, small counts) stays as it was.
 */
export function mask(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 100_000 ? v : '<number>';
  if (typeof v === 'string') return VOLATILE_STRING.test(v) ? '<string>' : v;
  if (Array.isArray(v)) return v.map(mask);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mask(x)]));
  return v;
}

/** Both values' keys at every level (b's value wins where both have one); arrays merge position by position. */
export function unionShape(a: unknown, b: unknown): unknown {
  if (a === undefined) return b;
  if (Array.isArray(a) && Array.isArray(b)) return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => unionShape(a[i], b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
    for (const [k, v] of Object.entries(b)) out[k] = unionShape(out[k], v);
    return out;
  }
  return b === undefined ? a : b;
}

const kindOf = (v: unknown): string => {
  if (v === '<number>') return 'number';
  if (v === '<string>') return 'string';
  if (v === null) return 'null';
  return Array.isArray(v) ? 'array' : typeof v;
};

/**
 * How the stand-in's answer differs from the real one, in words: a key the real program never sends, a value of
 * another JSON type, or a `same` path with another value. The real program may send more than the stand-in: a driver
 * must never need what the stand-in leaves out, and the drivers' own tests cover what they read.
 */
export function shapeDiff(real: unknown, standIn: unknown, at = '$'): string[] {
  const rk = kindOf(real);
  const sk = kindOf(standIn);
  // null where the real one has a value (or the reverse) is a type the driver must handle either way: allowed.
  if (rk !== sk && rk !== 'null' && sk !== 'null') return [`${at}: ${sk} in the stand-in, ${rk} in the real program`];
  if (rk === 'object' && sk === 'object') {
    const r = real as Record<string, unknown>;
    const s = standIn as Record<string, unknown>;
    // An empty object in the recording (OctoPrint's temperature before the first report) says nothing of its keys.
    if (Object.keys(r).length === 0) return [];
    return Object.keys(s).flatMap((k) => (k in r ? shapeDiff(r[k], s[k], `${at}.${k}`) : [`${at}.${k}: sent by the stand-in, not by the real program`]));
  }
  if (rk === 'array' && sk === 'array') {
    const r = real as unknown[];
    const s = standIn as unknown[];
    // Position by position (JSON-RPC params are positional); items past the recorded ones against the first.
    return r.length ? s.flatMap((x, i) => shapeDiff(r[i] ?? r[0], x, `${at}[${i}]`)) : [];
  }
  return [];
}

/** The value at a dotted path, or undefined. */
export function valueAt(v: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), v);
}
