// Recognises a unique or primary-key clash on either engine, for the callers that treat "someone else wrote it first" as success.
const DUPLICATE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', /* PostgreSQL SQLSTATE unique_violation */ '23505']);

export const isDuplicateKey = (err: unknown): boolean => DUPLICATE_CODES.has((err as { code?: string })?.code ?? '');
