// Recognises "the disk is full" in any of its forms (SQLite's SQLITE_FULL, the file system's ENOSPC or EDQUOT) and
// words the one 507 storage_full answer a client gets for it.
import { AppError } from '../errors.js';

const FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);

/** Whether `err` (or the error it wraps as `cause`) says the disk or the database ran out of room. */
export function isStorageFull(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AppError) return e.code === 'storage_full';
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && FULL_CODES.has(code)) return true;
  }
  return false;
}

/** What a client is told to do about it: the server cannot free space by itself. */
export const FREE_SPACE_HINT =
  'free space on the disk that holds the data directory (other programs\' files, logs or old copies on that disk, ' +
  'or move the data directory to a larger disk); reads keep working meanwhile';

/** 507 storage_full: `what` could not be written (e.g. "the job"); `details` may say how much room there is. */
export const storageFull = (what: string, details = '', reason = 'the disk is full'): AppError =>
  new AppError(507, 'storage_full', `${what} was not stored: ${reason}; ${FREE_SPACE_HINT}`, details);
