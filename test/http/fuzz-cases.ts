// Seeded generators for the HTTP fuzz test: values from a route's JSON Schema, mutations of them, odd paths, headers and bodies.
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { RouteDef } from '../../src/http/route.js';

type Schema = Record<string, unknown>;

import { seededRandom } from '../helpers/seeded-random.js';

export { seededRandom };

export class Dice {
  constructor(readonly next: () => number) {}
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  text(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.'): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }
}

/** Strings that have broken parsers, databases and terminals before. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u202eevil',
  'x\u2066y\u2069',
  '\ud800',
  '\udfff\ud800',
  '😀',
  'Ω≈ç√',
  "'; DROP TABLE api_keys; --",
  '%s%n%x',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '\r\nX-Injected: 1',
  '\t\n\u000b\u000c',
  '\u0085\u2028\u2029',
  'null',
  '__proto__',
  'constructor',
  '1e309',
  '-0',
  'svc_live_' + 'A'.repeat(40),
  '\ufeffBOM',
  'a'.repeat(101),
  'é'.repeat(300),
];

const NASTY_VALUES: unknown[] = [null, true, false, 0, -1, 1.5, -0, 1e308, Number.MAX_SAFE_INTEGER + 2, [], {}, [null], { a: { b: {} } }, '', 'x'];

/** A value that satisfies the schema where the generator understands it (and something plausible where not). */
export function sample(schema: Schema | undefined, d: Dice, depth = 0): unknown {
  if (!schema || depth > 6) return 'x';
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return d.pick(schema.enum);
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(variants) && variants.length > 0) return sample(d.pick(variants), d, depth + 1);
  const type = Array.isArray(schema.type) ? d.pick(schema.type as string[]) : (schema.type as string | undefined);
  switch (type) {
    case 'string':
      return sampleString(schema, d);
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
      const max = typeof schema.maximum === 'number' ? schema.maximum : min + 1000;
      const n = min + d.next() * Math.min(max - min, 1e6);
      return type === 'integer' ? Math.ceil(n) : Math.round(n * 100) / 100;
    }
    case 'boolean':
      return d.chance(0.5);
    case 'null':
      return null;
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const max = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 3, min + 3);
      return Array.from({ length: d.int(min, max) }, () => sample(schema.items as Schema, d, depth + 1));
    }
    case 'object':
    default: {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const out: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(props)) {
        if (sub.readOnly) continue;
        if (required.has(name) || d.chance(0.5)) out[name] = sample(sub, d, depth + 1);
      }
      return out;
    }
  }
}

function sampleString(schema: Schema, d: Dice): string {
  switch (schema.format) {
    case 'email':
      return `${d.text(8, 'abcdefghij')}@example.com`;
    case 'date-time':
      return new Date(Date.UTC(2026, 0, d.int(1, 28))).toISOString();
    case 'date':
      return '2026-01-15';
    case 'uri':
    case 'url':
      return `https://example.com/${d.text(6, 'abcdef')}.gcode`;
    default:
      break;
  }
  if (typeof schema.pattern === 'string' && schema.pattern === '^[A-Z]{3}$') return d.pick(['USD', 'EUR', 'GBP', 'XYZ']);
  const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
  const max = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 40, min + 40);
  return d.text(d.int(min, Math.max(min, max)));
}

/** A wrong value of some other kind, or a nasty string. */
export function wrongValue(d: Dice): unknown {
  return d.chance(0.5) ? d.pick(NASTY_VALUES) : d.pick(NASTY_STRINGS);
}

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: [v] };
  return v;
}

/** Mutates a sampled body: one field missing, of the wrong type, huge, nasty, unknown, or the whole body replaced. */
export function mutateBody(valid: unknown, schema: Schema | undefined, d: Dice): unknown {
  const obj = valid && typeof valid === 'object' && !Array.isArray(valid) ? { ...(valid as Record<string, unknown>) } : {};
  const fields = Object.keys((schema?.properties ?? {}) as Record<string, unknown>);
  const field = fields.length > 0 ? d.pick(fields) : 'name';
  switch (d.int(0, 9)) {
    case 0:
      delete obj[d.pick(Object.keys(obj).length > 0 ? Object.keys(obj) : ['x'])];
      return obj;
    case 1:
      obj[field] = wrongValue(d);
      return obj;
    case 2:
      obj[field] = d.pick(NASTY_STRINGS) + d.text(d.int(0, 5));
      return obj;
    case 3:
      obj[field] = 'x'.repeat(d.pick([101, 255, 256, 1000, 5000, 70_000]));
      return obj;
    case 4:
      obj[d.pick(['extra', '__proto__', 'constructor', 'id', 'created_at', 'a'.repeat(5000), '\u0000', ''])] = 1;
      return obj;
    case 5:
      return d.pick(NASTY_VALUES);
    case 6:
      obj[field] = nested(d.int(10, 2000));
      return obj;
    case 7:
      obj[field] = [wrongValue(d), wrongValue(d)];
      return obj;
    case 8:
      obj[field] = { nested: wrongValue(d) };
      return obj;
    default:
      return Object.fromEntries(Object.keys(obj).map((k) => [k, wrongValue(d)]));
  }
}

/** Raw bytes that are not JSON, or not quite. */
export function brokenJson(valid: unknown, d: Dice): Buffer {
  const text = JSON.stringify(valid ?? {});
  switch (d.int(0, 7)) {
    case 0:
      return Buffer.from(text.slice(0, d.int(0, text.length - 1)));
    case 1:
      return Buffer.from(d.text(d.int(1, 200), '{}[]":,\\ntrufalse0123456789 \u0000'));
    case 2:
      return Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0xa0]), Buffer.from('"}')]);
    case 3:
      return Buffer.from('[' .repeat(d.int(1000, 200_000)));
    case 4:
      return Buffer.from(text.replace(/"/g, "'"));
    case 5:
      return Buffer.from(`${text}${text}`);
    case 6:
      return Buffer.from('\ufeff' + text);
    default:
      return Buffer.from(`{"__proto__":{"admin":true},"a":${text}}`);
  }
}

/** encodeURIComponent refuses lone surrogates: send their (invalid) UTF-8 bytes percent-encoded instead. */
const encode = (s: string): string => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
};

const PARAM_ODDITIES = ['%00', '%ZZ', '%', '%C0%AF', '%E2%80%AE', '..', '%2e%2e%2f%2e%2e', '%2F', '.', '~', '%20', '0', '-1', '1e99', '%F0%9F%98%80'];

/** A path for the route: its params from the pool of real ids, random, huge or percent-encoded oddities. */
export function routePath(route: RouteDef<any, any>, ids: readonly string[], d: Dice): string {
  let path = route.path.replace(/:([A-Za-z_]+)/g, () => {
    const roll = d.next();
    if (roll < 0.45 && ids.length > 0) return encode(d.pick(ids));
    if (roll < 0.6) return `${d.pick(['key', 'usr', 'prn', 'job', 'mat', 'wh', 'org'])}_${d.text(20, 'abcdefABCDEF0123456789')}`;
    if (roll < 0.7) return encode(d.pick(NASTY_STRINGS) || 'x');
    if (roll < 0.75) return 'a'.repeat(5000);
    return d.pick(PARAM_ODDITIES);
  });
  if (d.chance(0.12)) {
    switch (d.int(0, 6)) {
      case 0:
        path = path.toUpperCase();
        break;
      case 1:
        path = `${path}/`;
        break;
      case 2:
        path = path.replace('/v1/', '/v1//');
        break;
      case 3:
        path = `${path}/${d.text(5, 'abc')}`;
        break;
      case 4:
        path = path.replace('/v1/', '/v1/../v1/');
        break;
      case 5:
        path = path.replace('/v1/', '/V1/');
        break;
      default:
        path = `${path};jsessionid=1`;
    }
  }
  return path + queryString(route, d);
}

const QUERY_ODDITIES = [
  'page=0',
  'page=-1',
  'page=1e3',
  'page=99999999999',
  'per_page=0',
  'per_page=101',
  'per_page=abc',
  'sort=',
  'sort=-',
  'sort=,,',
  'sort=-created_at,-created_at',
  'sort=__proto__',
  'fields=',
  'fields=id,,id',
  'fields=constructor',
  'a=%ZZ',
  '%ZZ=1',
  '__proto__[x]=1',
  'constructor=1',
  'page=1&page=2',
  'status=%00',
  'from=2026-02-31',
  'to=2026-01-01T10:00',
  'from=2026-01-02&to=2026-01-01',
  'email=' + 'a'.repeat(600),
  'role=owner',
  `x=${'y'.repeat(5000)}`,
];

function queryString(route: RouteDef<any, any>, d: Dice): string {
  if (route.list && d.chance(0.5)) {
    const parts: string[] = [];
    if (d.chance(0.4)) parts.push(`page=${d.int(1, 3)}`);
    if (d.chance(0.4)) parts.push(`per_page=${d.int(1, 100)}`);
    const sortable = Array.isArray(route.list.sortable) ? route.list.sortable : Object.keys(route.list.sortable);
    if (d.chance(0.4) && sortable.length > 0) parts.push(`sort=${d.chance(0.5) ? '-' : ''}${d.pick(sortable)}`);
    if (d.chance(0.3)) parts.push(`fields=${d.pick(route.list.fields)}`);
    for (const [name, f] of Object.entries(route.list.filters ?? {})) {
      if (d.chance(0.3)) parts.push(`${name}=${encode(f.values ? d.pick(f.values) : d.pick(NASTY_STRINGS) || 'x')}`);
    }
    if (d.chance(0.3)) parts.push(d.pick(QUERY_ODDITIES));
    return parts.length > 0 ? `?${parts.join('&')}` : '';
  }
  return d.chance(0.2) ? `?${d.pick(QUERY_ODDITIES)}` : '';
}

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'multipart/form-data',
  '*/*',
  'application/json;;;',
  'application/json; boundary=x; charset=bogus',
];

/** Bytes and the Content-Encoding header that goes with them: honest, lying or unknown. */
export function encodeBody(body: Buffer, d: Dice): { body: Buffer; encoding?: string } {
  switch (d.int(0, 8)) {
    case 0:
      return { body: gzipSync(body), encoding: 'gzip' };
    case 1:
      return { body: brotliCompressSync(body), encoding: 'br' };
    case 2:
      return { body: deflateSync(body), encoding: 'deflate' };
    case 3:
      return { body, encoding: d.pick(['gzip', 'deflate', 'br']) };
    case 4:
      return { body: gzipSync(body).subarray(0, d.int(1, 20)), encoding: 'gzip' };
    case 5:
      return { body, encoding: d.pick(['compress', 'x-foo', 'gzip, gzip', 'identity', '', 'GZIP', 'zstd']) };
    default:
      // A gzip bomb in miniature: small on the wire, past the limit once inflated.
      return d.chance(0.3) ? { body: gzipSync(Buffer.alloc(3 * 1024 * 1024, 0x20)), encoding: 'gzip' } : { body };
  }
}

/** A multipart body, well formed or not, for routes that take uploads. */
export function multipartBody(d: Dice): { body: Buffer; type: string } {
  const boundary = `----fuzz${d.text(8, 'abcdef0123')}`;
  const good = [
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.gcode"\r\nContent-Type: text/plain\r\n\r\nG28\nG1 X10\n\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="priority"\r\n\r\n${d.pick(['high', 'nope', ''])}\r\n`,
    `--${boundary}--\r\n`,
  ].join('');
  const body = d.chance(0.5) ? good : good.slice(0, d.int(0, good.length));
  return { body: Buffer.from(body), type: d.chance(0.8) ? `multipart/form-data; boundary=${boundary}` : 'multipart/form-data' };
}

/** Requests to paths no route has: the dashboard, traversal, wrong case, odd methods. */
export const ODD_PATHS = [
  '/',
  '/index.html',
  '/../etc/passwd',
  '/%2e%2e/%2e%2e/etc/passwd',
  '/.env',
  '/V1/printers',
  '/v1',
  '/v1/',
  '/v2/printers',
  '/healthz/',
  '/HEALTHZ',
  '/%00',
  '/v1/%ZZ',
  '//v1//api-keys',
  `/${'x'.repeat(8000)}`,
  '/favicon.ico',
  '/web/../package.json',
];
