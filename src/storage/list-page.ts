// Runs a parsed list query on kysely: filters, total count, order and one page, shaped as { data, pagination }.
import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely';

/** A condition the parser resolved; `custom` filters hand their typed value to the spec's own `where`. */
export type ListCondition =
  | { param: string; column: string; op: '=' | '>=' | '<' | '<='; value: string | number }
  | { param: string; column: string; op: 'in'; values: readonly string[] }
  | { param: string; custom: (value: string | number) => Expression<SqlBool>; value: string | number };

export interface SortKey {
  field: string;
  column: string;
  desc: boolean;
}

export interface ListQuery {
  page: number;
  perPage: number;
  /** The requested order followed by the tie-breaker. */
  sort: SortKey[];
  /** Requested fields, or null for all. */
  fields: string[] | null;
  where: ListCondition[];
}

export interface Pagination {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
}

export interface ListPage<T> {
  data: T[];
  pagination: Pagination;
}

/** The value(s) a parsed equality condition asks for: several for `status=queued,printing`. */
export function conditionValues(c: ListCondition): readonly (string | number)[] {
  return 'values' in c ? c.values : [c.value];
}

/**
 * A filter whose SQL depends on the value (a printer's live status, a key's status at this moment), over every value
 * the condition names: `status=idle,error` matches either.
 */
export function customCondition(c: ListCondition, where: (value: string | number) => Expression<SqlBool>): ListCondition {
  const values = conditionValues(c);
  return {
    param: c.param,
    value: values[0] as string | number,
    custom: () => (values.length === 1 ? where(values[0] as string | number) : sql<SqlBool>`(${sql.join(values.map(where), sql` or `)})`),
  };
}

/** The query with every condition on `param` answered by `where` (SQL that depends on the engine or on live state). */
export function withCustomCondition(q: ListQuery, param: string, where: (value: string | number) => Expression<SqlBool>): ListQuery {
  return { ...q, where: q.where.map((c) => (c.param === param ? customCondition(c, where) : c)) };
}

function conditionSql(c: ListCondition): Expression<SqlBool> {
  if ('custom' in c) return c.custom(c.value);
  if (c.op === 'in') return sql<SqlBool>`${sql.ref(c.column)} in (${sql.join(c.values.map((v) => sql`${v}`))})`;
  return sql<SqlBool>`${sql.ref(c.column)} ${sql.raw(c.op)} ${c.value}`;
}

/** Keeps only the requested fields of a serialized record, in the order of the record. */
export function selectFields<T extends Record<string, unknown>>(record: T, fields: string[] | null): Partial<T> {
  if (!fields) return record;
  return Object.fromEntries(Object.entries(record).filter(([k]) => fields.includes(k))) as Partial<T>;
}

/**
 * Runs a parsed list query on a plain select (no group by / limit of its own): counts the filtered rows, fetches one
 * page in the requested order, serializes each row and applies field selection.
 */
export async function runListQuery<DB, TB extends keyof DB, O, T extends Record<string, unknown>>(
  base: SelectQueryBuilder<DB, TB, O>,
  q: ListQuery,
  serialize: (row: O) => T,
): Promise<ListPage<Partial<T>>> {
  let filtered = base;
  for (const c of q.where) filtered = filtered.where(conditionSql(c));

  const countRow = (await filtered
    .clearSelect()
    .clearOrderBy()
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirst()) as { n: number } | undefined;
  const total = Number(countRow?.n ?? 0);

  let paged = filtered;
  // NULLs spelled out: SQLite puts them first ascending, PostgreSQL last; both engines read this the same (SQLite's
  // own default, so its indexes still serve the order).
  for (const k of q.sort) paged = paged.orderBy(sql`${sql.ref(k.column)} ${sql.raw(k.desc ? 'desc nulls last' : 'asc nulls first')}`);
  const rows = await paged.limit(q.perPage).offset((q.page - 1) * q.perPage).execute();

  return {
    data: rows.map((row) => selectFields(serialize(row as O), q.fields)),
    pagination: { page: q.page, per_page: q.perPage, total, total_pages: Math.ceil(total / q.perPage) },
  };
}
