// The API reference is the OpenAPI document: every served route is in it with words and valid examples, and the error, event and scope catalogues match the code.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { allRoutes, apiDocument } from '../../src/app/routes-index.js';
import { toOpenApiPath } from '../../src/http/openapi.js';
import { ERROR_CATALOGUE } from '../../src/error-catalogue.js';
import { EVENT_TYPES, STREAM_ONLY_EVENT_MEANINGS } from '../../src/events/event-names.js';
import { KNOWN_SCOPES } from '../../src/auth/scopes.js';

type Obj = Record<string, any>;
const routes = allRoutes();
const doc = apiDocument() as Obj;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => void;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);

const opOf = (method: string, p: string): Obj | undefined => doc.paths[toOpenApiPath(p)]?.[method.toLowerCase()];

/** Each example of a schema, checked against that schema: the failures as "example N: /path message". */
function exampleProblems(schema: Obj): string[] {
  const validate = ajv.compile({ ...schema, examples: undefined });
  return (schema.examples as unknown[]).flatMap((ex, i) =>
    validate(ex) ? [] : (validate.errors ?? []).map((e) => `example ${i + 1}: ${e.instancePath || '(root)'} ${e.message}`),
  );
}

describe('the OpenAPI document as the API reference', () => {
  it('has every served route with a summary and a description of its own', () => {
    const missing: string[] = [];
    for (const r of routes) {
      const key = `${r.method} ${r.path}`;
      const op = opOf(r.method, r.path);
      if (!op) missing.push(`${key}: not in the document`);
      else if (!r.summary?.trim()) missing.push(`${key}: no summary`);
      else if (!r.description?.trim()) missing.push(`${key}: no description (set \`description\` on its RouteDef)`);
      else if (!String(op.description).includes(r.description.trim().slice(0, 40))) missing.push(`${key}: the description is not in the document`);
    }
    assert.deepEqual(missing, [], missing.join('\n'));
  });

  it('describes every parameter', () => {
    const missing: string[] = [];
    for (const r of routes) {
      for (const p of opOf(r.method, r.path)?.parameters ?? []) if (!p.description?.trim()) missing.push(`${r.method} ${r.path}: ${p.in} parameter ${p.name} has no description`);
    }
    assert.deepEqual(missing, [], missing.join('\n'));
  });

  it('shows an example of every JSON body, valid against its schema', () => {
    const problems: string[] = [];
    for (const r of routes) {
      if (!r.body) continue;
      const key = `${r.method} ${r.path}`;
      const schema = opOf(r.method, r.path)?.requestBody?.content?.['application/json']?.schema as Obj | undefined;
      if (!Array.isArray(schema?.examples) || schema.examples.length === 0) problems.push(`${key}: the body schema has no \`examples: [...]\``);
      else problems.push(...exampleProblems(schema).map((p) => `${key} body ${p}`));
    }
    assert.deepEqual(problems, [], problems.join('\n'));
  });

  it('shows an example of every success answer with a JSON schema, valid against it', () => {
    const problems: string[] = [];
    for (const r of routes) {
      const key = `${r.method} ${r.path}`;
      for (const [status, resp] of Object.entries(opOf(r.method, r.path)?.responses ?? {}) as [string, Obj][]) {
        if (!status.startsWith('2')) continue;
        const schema = resp.content?.['application/json']?.schema as Obj | undefined;
        if (!schema) continue;
        if (!Array.isArray(schema.examples) || schema.examples.length === 0) problems.push(`${key}: the ${status} answer's schema has no \`examples: [...]\``);
        else problems.push(...exampleProblems(schema).map((p) => `${key} ${status} ${p}`));
      }
    }
    assert.deepEqual(problems, [], problems.join('\n'));
  });

  it('lists every error code the program throws, with each status it is thrown with and its meaning', () => {
    const problems: string[] = [];
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((n) => (statSync(path.join(dir, n)).isDirectory() ? walk(path.join(dir, n)) : n.endsWith('.ts') ? [path.join(dir, n)] : []));
    for (const file of walk('src')) {
      for (const m of readFileSync(file, 'utf8').matchAll(/new AppError\(\s*(\d{3}),\s*'([a-z_]+)'/g)) {
        const entry = (ERROR_CATALOGUE as Record<string, { statuses: readonly number[] }>)[m[2]!];
        if (!entry) problems.push(`${file}: code ${m[2]} is not in src/error-catalogue.ts`);
        else if (!entry.statuses.includes(Number(m[1]))) problems.push(`${file}: ${m[2]} is thrown with ${m[1]}, the catalogue lists ${entry.statuses.join(', ')}`);
      }
    }
    const text = doc.info.description as string;
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      if (!entry.meaning.trim()) problems.push(`${code}: no meaning`);
      if (!text.includes(`| \`${code}\` | ${entry.statuses.join(', ')} |`)) problems.push(`${code}: not in the reference's error table`);
    }
    assert.deepEqual(doc.components.schemas.Error.properties.error.properties.code.enum, Object.keys(ERROR_CATALOGUE));
    assert.deepEqual(problems, [], problems.join('\n'));
  });

  it('says for every error answer of every route which codes it carries, from the catalogue', () => {
    const problems: string[] = [];
    const codes = Object.keys(ERROR_CATALOGUE);
    for (const r of routes) {
      for (const [status, resp] of Object.entries(opOf(r.method, r.path)?.responses ?? {}) as [string, Obj][]) {
        if (Number(status) < 400) continue;
        const answer = resp.$ref ? doc.components.responses[String(resp.$ref).split('/').pop()!] : resp;
        const named = codes.filter((c) => new RegExp(`\\b${c}\\b`).test(String(answer?.description)));
        if (named.length === 0) problems.push(`${r.method} ${r.path}: the ${status} answer names no error code`);
        for (const c of named) {
          if (!(ERROR_CATALOGUE as Record<string, { statuses: readonly number[] }>)[c]!.statuses.includes(Number(status)))
            problems.push(`${r.method} ${r.path}: the ${status} answer names ${c}, which the catalogue never sends with ${status}`);
        }
      }
    }
    assert.deepEqual(problems, [], problems.join('\n'));
  });

  it('documents every event type and every scope', () => {
    const text = doc.info.description as string;
    const missing = [
      ...[...EVENT_TYPES, ...Object.keys(STREAM_ONLY_EVENT_MEANINGS)].filter((t) => !new RegExp(`^\\| \`${t.replace('.', '\\.')}\` \\| [^|]+ \\| \\S`, 'm').test(text)).map((t) => `event type ${t}`),
      ...KNOWN_SCOPES.filter((s) => !/:\*$/.test(s)).filter((s) => !new RegExp(`^\\| \`${s}\` \\| \\S`, 'm').test(text)).map((s) => `scope ${s}`),
    ];
    assert.deepEqual(missing, [], `not in the reference: ${missing.join(', ')}`);
  });
});
