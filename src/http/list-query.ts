// The one list-query parser every list endpoint uses: page/per_page/sort/fields/filters, strictly; storage/list-page runs the result.
import type { Expression, SqlBool } from 'kysely';
import { badRequest, quoteInput } from '../errors.js';
import { describeUnsafeCharacter, findUnsafeCharacter } from '../text-safety.js';
import type { ListCondition, ListQuery, SortKey } from '../storage/list-page.js';
import type { JsonSchema } from './validation.js';

export type FilterType = 'string' | 'enum' | 'date' | 'boolean' | 'number';

export interface FilterSpec {
  /** SQL column (may be qualified, e.g. "jobs.status"); not needed when `where` is given. */
  column?: string;
  type: FilterType;
  /** Allowed values of an enum filter. */
  values?: readonly string[];
  description?: string;
  /** For filters that are not a plain column equality (e.g. membership in a JSON array of tags). */
  where?: (value: string | number) => Expression<SqlBool>;
}

export interface ListSpec {
  /** Every field a serialized record may carry: the whitelist of `fields`. */
  fields: readonly string[];
  /** Sortable field names; a map gives the SQL column of each where it differs from the name. */
  sortable: readonly string[] | Readonly<Record<string, string>>;
  /** Equality filters by query parameter name. */
  filters?: Readonly<Record<string, FilterSpec>>;
  /** Enables `from` / `to` on this timestamp column (a date without time means the whole UTC day). */
  dateRange?: { column: string };
  /** Default "-created_at". */
  defaultSort?: string;
  /** Tie-breaker column that makes every order total; default "id". */
  idColumn?: string;
}

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;
const MAX_PAGE = 1_000_000_000;
const MAX_FILTER_LENGTH = 500;

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
// ISO 8601 with time; a zone is required so "10:00" never silently means server-local time.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const DAY_MS = 86_400_000;

function sortColumns(spec: ListSpec): Record<string, string> {
  if (Array.isArray(spec.sortable)) return Object.fromEntries((spec.sortable as readonly string[]).map((f) => [f, f]));
  return { ...(spec.sortable as Record<string, string>) };
}

function single(name: string, raw: string | string[] | undefined): string | undefined {
  if (Array.isArray(raw)) throw badRequest(`query parameter ${name}: must be given at most once`);
  return raw;
}

function parseInteger(name: string, text: string, min: number, max: number): number {
  if (!/^\d{1,10}$/.test(text)) throw badRequest(`query parameter ${name}: must be an integer from ${min} to ${max}`);
  const n = Number(text);
  if (n < min || n > max) throw badRequest(`query parameter ${name}: must be an integer from ${min} to ${max}`);
  return n;
}

function commaList(name: string, text: string): string[] {
  const items = text.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw badRequest(`query parameter ${name}: must be a comma-separated list without empty entries`);
  const seen = new Set<string>();
  for (const item of items) {
    const key = name === 'sort' ? item.replace(/^-/, '') : item;
    if (seen.has(key)) throw badRequest(`query parameter ${name}: ${quoteInput(key)} is given twice`);
    seen.add(key);
  }
  return items;
}

/** A date or date-time as a UTC instant range: a bare date covers the whole day. */
export function parseDateParam(name: string, text: string): { start: string; endExclusive: string | null; exact: string } {
  const fail = (): never => {
    throw badRequest(`query parameter ${name}: must be an ISO 8601 date (2026-01-31) or date-time with zone (2026-01-31T12:00:00Z)`);
  };
  if (DATE_ONLY.test(text)) {
    const ms = Date.parse(`${text}T00:00:00.000Z`);
    // Date.parse rolls 2026-02-31 over to March; a round trip catches impossible days.
    if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) fail();
    const start = new Date(ms).toISOString();
    return { start, endExclusive: new Date(ms + DAY_MS).toISOString(), exact: start };
  }
  if (DATE_TIME.test(text)) {
    const ms = Date.parse(text);
    const [y, mo, d] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
    const probe = new Date(Date.UTC(y, mo - 1, d));
    if (Number.isNaN(ms) || probe.getUTCMonth() !== mo - 1 || probe.getUTCDate() !== d) fail();
    const iso = new Date(ms).toISOString();
    return { start: iso, endExclusive: null, exact: iso };
  }
  return fail();
}

function filterConditions(name: string, text: string, f: FilterSpec): ListCondition[] {
  let value: string | number;
  switch (f.type) {
    case 'string': {
      if (text.length === 0 || text.length > MAX_FILTER_LENGTH) {
        throw badRequest(`query parameter ${name}: must be 1 to ${MAX_FILTER_LENGTH} characters long`);
      }
      const unsafe = findUnsafeCharacter(text, false);
      if (unsafe) throw badRequest(`query parameter ${name}: ${describeUnsafeCharacter(unsafe)}`);
      value = text;
      break;
    }
    case 'enum': {
      // One value, or several separated by commas (status=queued,printing): any of them matches.
      const allowed = f.values ?? [];
      const values = [...new Set(text.split(',').map((v) => v.trim()))];
      const bad = values.find((v) => !allowed.includes(v));
      if (bad !== undefined) {
        throw badRequest(`query parameter ${name}: ${quoteInput(bad)} is not one of ${allowed.map((v) => `"${v}"`).join(', ')} (several may be given, separated by commas)`);
      }
      if (values.length > 1) {
        if (f.where) throw badRequest(`query parameter ${name}: give one value`);
        return [{ param: name, column: f.column ?? name, op: 'in', values }];
      }
      value = values[0] as string;
      break;
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw badRequest(`query parameter ${name}: must be true or false`);
      // SQLite stores booleans as 0/1.
      value = text === 'true' ? 1 : 0;
      break;
    case 'number': {
      const n = /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
      if (!Number.isFinite(n)) throw badRequest(`query parameter ${name}: must be a number`);
      value = n;
      break;
    }
    case 'date': {
      const range = parseDateParam(name, text);
      if (f.where) return [{ param: name, custom: f.where, value: range.exact }];
      const column = f.column ?? name;
      if (range.endExclusive === null) return [{ param: name, column, op: '=', value: range.exact }];
      return [
        { param: name, column, op: '>=', value: range.start },
        { param: name, column, op: '<', value: range.endExclusive },
      ];
    }
  }
  if (f.where) return [{ param: name, custom: f.where, value }];
  return [{ param: name, column: f.column ?? name, op: '=', value }];
}

/**
 * Parses a Koa query object against a list spec. Pure: throws 400 invalid_request naming the parameter and the rule
 * for an unknown parameter, a repeated one or a bad value.
 */
export function parseListQuery(query: Record<string, string | string[] | undefined>, spec: ListSpec): ListQuery {
  const filters = spec.filters ?? {};
  const known = new Set(['page', 'per_page', 'sort', 'fields', ...Object.keys(filters)]);
  if (spec.dateRange) known.add('from').add('to');
  for (const name of Object.keys(query)) {
    if (!known.has(name)) {
      throw badRequest(`unknown query parameter ${quoteInput(name)}`, `this list takes: ${[...known].join(', ')}`);
    }
  }

  const pageText = single('page', query.page);
  const perPageText = single('per_page', query.per_page);
  const page = pageText === undefined ? 1 : parseInteger('page', pageText, 1, MAX_PAGE);
  const perPage = perPageText === undefined ? DEFAULT_PER_PAGE : parseInteger('per_page', perPageText, 1, MAX_PER_PAGE);

  const columns = sortColumns(spec);
  const sortText = single('sort', query.sort);
  const requested = sortText === undefined ? commaList('sort', spec.defaultSort ?? '-created_at') : commaList('sort', sortText);
  const sort: SortKey[] = requested.map((item) => {
    const desc = item.startsWith('-');
    const field = desc ? item.slice(1) : item;
    // Own properties only: "sort=__proto__" must not find Object.prototype.
    const column = Object.hasOwn(columns, field) ? columns[field] : undefined;
    if (column === undefined) {
      throw badRequest(`query parameter sort: cannot sort by ${quoteInput(field)}`, `sortable fields: ${Object.keys(columns).join(', ')}`);
    }
    return { field, column, desc };
  });
  const idColumn = spec.idColumn ?? 'id';
  if (!sort.some((k) => k.column === idColumn)) {
    sort.push({ field: 'id', column: idColumn, desc: sort[sort.length - 1]?.desc ?? false });
  }

  const fieldsText = single('fields', query.fields);
  let fields: string[] | null = null;
  if (fieldsText !== undefined) {
    fields = commaList('fields', fieldsText);
    for (const f of fields) {
      if (!spec.fields.includes(f)) {
        throw badRequest(`query parameter fields: unknown field ${quoteInput(f)}`, `fields: ${spec.fields.join(', ')}`);
      }
    }
  }

  const where: ListCondition[] = [];
  for (const [name, f] of Object.entries(filters)) {
    const text = single(name, query[name]);
    if (text !== undefined) where.push(...filterConditions(name, text, f));
  }
  if (spec.dateRange) {
    const column = spec.dateRange.column;
    const fromText = single('from', query.from);
    const toText = single('to', query.to);
    const from = fromText === undefined ? undefined : parseDateParam('from', fromText);
    const to = toText === undefined ? undefined : parseDateParam('to', toText);
    if (from) where.push({ param: 'from', column, op: '>=', value: from.start });
    if (to) {
      if (to.endExclusive !== null) where.push({ param: 'to', column, op: '<', value: to.endExclusive });
      else where.push({ param: 'to', column, op: '<=', value: to.exact });
    }
    const empty = from && to && (to.endExclusive !== null ? from.start >= to.endExclusive : from.start > to.exact);
    if (empty) {
      throw badRequest('query parameter from: must not be later than to');
    }
  }

  return { page, perPage, sort, fields, where };
}

/** The query parameters of a list as JSON Schema properties, for the OpenAPI document (values as the client writes them). */
export function listQueryParameters(spec: ListSpec): { name: string; description: string; schema: JsonSchema }[] {
  const sortable = Object.keys(sortColumns(spec));
  const params: { name: string; description: string; schema: JsonSchema }[] = [
    { name: 'page', description: 'Page number, from 1.', schema: { type: 'integer', minimum: 1, default: 1 } },
    {
      name: 'per_page',
      description: `Records per page, 1 to ${MAX_PER_PAGE}.`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE },
    },
    {
      name: 'sort',
      description: `Comma-separated sort fields, "-" prefix for descending. Sortable: ${sortable.join(', ')}. Ties are broken by id.`,
      schema: { type: 'string', default: spec.defaultSort ?? '-created_at' },
    },
    {
      name: 'fields',
      description: `Comma-separated fields to return. Known: ${spec.fields.join(', ')}.`,
      schema: { type: 'string' },
    },
  ];
  for (const [name, f] of Object.entries(spec.filters ?? {})) {
    const schema: JsonSchema =
      f.type === 'enum'
        ? { type: 'string', description: `one of ${(f.values ?? []).join(', ')}, or several separated by commas` }
        : f.type === 'boolean'
          ? { type: 'boolean' }
          : f.type === 'number'
            ? { type: 'number' }
            : f.type === 'date'
              ? { type: 'string', description: 'date or date-time' }
              : { type: 'string', minLength: 1, maxLength: MAX_FILTER_LENGTH };
    params.push({ name, description: f.description ?? `Only records whose ${name} equals this value.`, schema });
  }
  if (spec.dateRange) {
    params.push(
      { name: 'from', description: 'Created at or after this instant; a date alone means from the start of that UTC day.', schema: { type: 'string' } },
      { name: 'to', description: 'Created at or before this instant; a date alone means up to the end of that UTC day.', schema: { type: 'string' } },
    );
  }
  return params;
}

/** JSON Schema of the pagination object, for response documentation. */
export const paginationSchema: JsonSchema = {
  type: 'object',
  required: ['page', 'per_page', 'total', 'total_pages'],
  properties: {
    page: { type: 'integer', minimum: 1 },
    per_page: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE },
    total: { type: 'integer', minimum: 0 },
    total_pages: { type: 'integer', minimum: 0 },
  },
};

/** JSON Schema of a list response: `{ data: [record...], pagination }`. */
export const listResponseSchema = (record: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['data', 'pagination'],
  properties: { data: { type: 'array', items: record }, pagination: paginationSchema },
});
