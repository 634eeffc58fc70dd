// Turns the text fields of a multipart job create into the typed create fields (numbers and lists arrive as strings).
import { badRequest } from '../errors.js';
import { validateOrThrow } from '../http/validation.js';
import { JobCreateForm, type JobCreateBody } from './jobs.schemas.js';
import type { NewJobFields } from './jobs.service.js';

/** Form field values as the multipart parser hands them over: one string, or several for a repeated field. */
export type FormFields = Record<string, string | string[]>;

const single = (name: string, v: string | string[] | undefined): string | undefined => {
  if (v === undefined) return undefined;
  if (Array.isArray(v)) {
    if (v.length > 1) throw badRequest(`${name}: given ${v.length} times; send it once`);
    return v[0];
  }
  return v;
};

export function formToCreateFields(fields: FormFields): NewJobFields {
  const out: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(fields)) {
    if (name === 'tags') {
      const list = (Array.isArray(raw) ? raw : [raw]).flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean);
      out.tags = list;
      continue;
    }
    const value = single(name, raw);
    if (name === 'print_options') {
      try {
        out.print_options = JSON.parse(value ?? '');
      } catch {
        throw badRequest('print_options: must be JSON text of an object, e.g. {"timelapse":true}');
      }
      continue;
    }
    if (name === 'copies') {
      if (!/^\d{1,4}$/.test(value ?? '')) throw badRequest(`copies: must be a whole number from 1 to 100, got "${(value ?? '').slice(0, 20)}"`);
      out.copies = Number(value);
      continue;
    }
    out[name] = value;
  }
  const form = validateOrThrow<JobCreateForm>(JobCreateForm, out, 'body');
  const { material, material_color, ...rest } = form;
  return { ...rest, material: material ? { type: material, color: material_color ?? null } : null };
}

/** Where a JSON create's file comes from: exactly one of file_url (downloaded) and file_id (already stored). */
export type JsonFileSource = { kind: 'url'; url: string } | { kind: 'stored'; fileId: string };

export function jsonFileSource(body: Pick<JobCreateBody, 'file_url' | 'file_id'>): JsonFileSource {
  if (body.file_url !== undefined && body.file_id !== undefined) {
    throw badRequest('file_url, file_id: give one of them, not both', 'file_id queues a stored file; file_url downloads a new one');
  }
  if (body.file_id !== undefined) return { kind: 'stored', fileId: body.file_id };
  if (body.file_url !== undefined) return { kind: 'url', url: body.file_url };
  throw badRequest(
    'file_url or file_id: is required',
    'name the G-code by its address (file_url), as a stored file (file_id, from GET /v1/files), or send it as multipart/form-data',
  );
}

/** The JSON create's `material` is a type name or { type, color }. */
export function bodyToCreateFields(body: JobCreateBody): NewJobFields {
  const { file_url: _url, file_id: _id, material, ...rest } = body;
  return {
    ...rest,
    material: material === undefined ? null : typeof material === 'string' ? { type: material } : { type: material.type, color: material.color ?? null },
  };
}
