// Streaming multipart/form-data reader for uploads (busboy): text fields into a record, the one file part straight into the store, never whole in memory.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { AppError, badRequest } from '../errors.js';
import { formatBytes, type FileLimits } from './file-limits.js';
import type { FileRecord } from './files.schemas.js';

export type MultipartFields = Record<string, string | string[]>;

export interface MultipartUpload {
  fields: MultipartFields;
  file: FileRecord | null;
}

/**
 * Stores one file stream and returns its record (FilesService.ingestStream with the route's limits); `admit`, when
 * given, must pass before the content is kept.
 */
export type IngestFn = (source: Readable, originalName: string, admit?: () => Promise<void>) => Promise<FileRecord>;

export interface MultipartOptions {
  /** Name of the file part; default "file". */
  fileField?: string;
  /** Refuse a form without the file part (default true); when false `file` may be null. */
  requireFile?: boolean;
  /**
   * Runs with the whole form once the file is read and valid, before it is kept: fields may come after the file part
   * (Cura sends them so), and a form they refuse must store nothing.
   */
  admit?: (fields: MultipartFields, fileName: string) => Promise<void>;
  /** How header parameters (the file name) are decoded; default utf8. latin1 keeps every byte for the caller to decode. */
  paramCharset?: 'utf8' | 'latin1';
}

const MAX_FIELD_NAME_BYTES = 100;

/** Adds a field; a repeated name (or `name[]`) becomes an array in order. */
function addField(fields: MultipartFields, rawName: string, value: string): void {
  const name = rawName.endsWith('[]') ? rawName.slice(0, -2) : rawName;
  const list = rawName.endsWith('[]');
  const prev = fields[name];
  if (prev === undefined) fields[name] = list ? [value] : value;
  else fields[name] = Array.isArray(prev) ? [...prev, value] : [prev, value];
}

/** AppErrors (413, 422, ...) stand; a system error (disk) stays a 500; anything else is the file part breaking off. */
function explainIngestError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const code = (err as NodeJS.ErrnoException)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return err;
  return badRequest(`the file part ended unexpectedly: ${(err as Error)?.message ?? String(err)}`);
}

/**
 * Reads a multipart job upload from the raw request. Resolves when the whole form is read and the file is stored.
 * Rejects with 400 for a malformed body, a second file part, a file under another name, a `file` sent as text, a
 * missing file, too many or too long fields, or an upload cut off; with 413/422 as `ingest` decides for the file.
 * After a rejection the rest of the request body is read and dropped, so the client still gets the error response.
 */
export function parseMultipartJobUpload(
  req: IncomingMessage,
  limits: FileLimits,
  ingest: IngestFn,
  options: MultipartOptions = {},
): Promise<MultipartUpload> {
  const fileField = options.fileField ?? 'file';
  const requireFile = options.requireFile ?? true;
  return new Promise<MultipartUpload>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: options.paramCharset ?? 'utf8',
        limits: {
          fieldNameSize: MAX_FIELD_NAME_BYTES,
          fieldSize: limits.maxFieldBytes,
          fields: limits.maxFields,
          files: 1,
          parts: limits.maxFields + 1,
        },
      });
    } catch (err) {
      reject(badRequest(`malformed multipart body: ${(err as Error).message}`));
      return;
    }
    const fields: MultipartFields = {};
    let stored: Promise<FileRecord> | null = null;
    let settled = false;
    // Settles when the parser has read every part (or the upload failed): what `admit` waits for.
    let formRead!: (f: MultipartFields) => void;
    let formFailed!: (err: unknown) => void;
    const formClosed = new Promise<MultipartFields>((res, rej) => {
      formRead = res;
      formFailed = rej;
    });
    formClosed.catch(() => undefined);

    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      parser.removeAllListeners();
      parser.on('error', () => undefined);
      parser.destroy();
      stored?.catch(() => undefined);
      formFailed(err);
      // Drain what the client still sends, so it reads our answer instead of a reset connection.
      req.resume();
      reject(err);
    };

    parser.on('file', (name, stream, info) => {
      // A part we do not read is drained; its stream errors when the parser is torn down, which must not go unheard.
      stream.on('error', () => undefined);
      if (settled) {
        stream.resume();
        return;
      }
      if (name !== fileField) {
        stream.resume();
        fail(badRequest(`unexpected file part "${name}": send the G-code file in the part named "${fileField}"`));
        return;
      }
      const fileName = info.filename ?? '';
      const admit = options.admit;
      stored = ingest(stream, fileName, admit ? async () => admit(await formClosed, fileName) : undefined);
      stored.catch((err: unknown) => fail(explainIngestError(err)));
    });
    parser.on('field', (name, value, info) => {
      if (settled) return;
      if (info.nameTruncated) return fail(badRequest(`a form field name is longer than ${MAX_FIELD_NAME_BYTES} bytes`));
      if (name === fileField) return fail(badRequest(`${fileField}: must be a file part (with a filename), not a text field`));
      if (info.valueTruncated) return fail(badRequest(`${name}: longer than ${formatBytes(limits.maxFieldBytes)}`));
      addField(fields, name, value);
    });
    parser.on('filesLimit', () => fail(badRequest(`only one file part ("${fileField}") is accepted; the form has more`)));
    parser.on('fieldsLimit', () => fail(badRequest(`too many form fields: at most ${limits.maxFields}`)));
    parser.on('partsLimit', () => fail(badRequest(`too many form parts: at most ${limits.maxFields + 1}`)));
    parser.on('error', (err: Error) => fail(badRequest(`malformed multipart body: ${err.message}`)));
    parser.on('close', () => {
      if (settled) return;
      formRead(fields);
      if (!stored) {
        if (requireFile) fail(badRequest(`${fileField}: is required (a file part named "${fileField}")`));
        else {
          settled = true;
          resolve({ fields, file: null });
        }
        return;
      }
      stored.then((file) => {
        if (settled) return;
        settled = true;
        resolve({ fields, file });
      }, (err: unknown) => fail(explainIngestError(err)));
    });
    req.on('close', () => {
      if (!req.complete) fail(badRequest('the upload was cut off before the end of the form'));
    });
    req.pipe(parser);
  });
}
