// GET /v1/openapi.json: a structurally valid OpenAPI 3.1 document listing exactly the routes the server serves, built from the validating schemas.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import Router from '@koa/router';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { mountRoutes } from '../../src/http/mount-routes.js';
import { buildOpenApiDocument, operationId, toOpenApiPath } from '../../src/http/openapi.js';
import { defineRoute } from '../../src/http/route.js';
import { allRoutes } from '../../src/app/routes-index.js';
import { withTextDefaults } from '../../src/http/text-field.js';
import { compileSchema } from '../../src/http/validation.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Obj = Record<string, any>;

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: Obj;
  before(async () => {
    t = await startTestApp();
    const res = await t.request('/v1/openapi.json');
    assert.equal(res.status, 200, 'served without a key');
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    doc = (await res.json()) as Obj;
  });
  after(async () => {
    await t.close();
  });

  const operations = (): { path: string; method: string; op: Obj }[] =>
    Object.entries(doc.paths as Obj).flatMap(([path, item]) =>
      Object.entries(item as Obj)
        .filter(([m]) => HTTP_METHODS.includes(m))
        .map(([method, op]) => ({ path, method, op: op as Obj })),
    );

  it('is OpenAPI 3.1.0 with info, paths, components and the security schemes', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(typeof doc.info.title, 'string');
    assert.equal(typeof doc.info.version, 'string');
    assert.equal(doc.components.securitySchemes.bearerAuth.type, 'http');
    assert.equal(doc.components.securitySchemes.bearerAuth.scheme, 'bearer');
    assert.equal(doc.components.securitySchemes.basicAuth.scheme, 'basic');
    assert.deepEqual(doc.components.securitySchemes.sessionCookie, { ...doc.components.securitySchemes.sessionCookie, type: 'apiKey', in: 'cookie', name: 'printfarm_session' });
    assert.deepEqual(doc.components.schemas.Error.required, ['success', 'error']);
  });

  it('lists exactly the operations the router serves, no more and no fewer', () => {
    // The same mounting the app does, read back from the router: what answers is what is documented.
    const router = new Router({ sensitive: true });
    mountRoutes(router, allRoutes(), t.deps);
    const served = router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${toOpenApiPath(String(layer.path))}`));
    const documented = operations().map((o) => `${o.method.toUpperCase()} ${o.path}`);
    assert.deepEqual([...documented].sort(), [...served].sort());
    for (const key of ['GET /v1/openapi.json', 'POST /v1/api-keys', 'GET /v1/printers', 'POST /v1/jobs', 'GET /v1/webhooks']) assert.ok(documented.includes(key), key);
  });

  it('no documented operation is an unknown route to an admin key; every GET without path or required query parameters answers 2xx', async () => {
    const admin = await mintTestKey(t);
    // An operation whose only security scheme is the session cookie is called the way it documents: with an admin
    // session (made from the key), from the same origin.
    const sessionHeaders = async (json: boolean): Promise<Record<string, string>> => {
      const res = await t.request('/v1/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ api_key: admin }) });
      assert.equal(res.status, 201, 'an admin key signs in');
      const cookie = (res.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
      return { Cookie: cookie, 'Sec-Fetch-Site': 'same-origin', ...(json ? { 'Content-Type': 'application/json' } : {}) };
    };
    for (const { path, method, op } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      const needsQuery = ((op.parameters ?? []) as Obj[]).some((p) => p.in === 'query' && p.required === true);
      const withBody = method !== 'get' && method !== 'delete';
      const sessionOnly = JSON.stringify(op.security) === JSON.stringify([{ sessionCookie: [] }]);
      const res = await t.request(path.replace(/\{\w+\}/g, 'x_1'), {
        method: method.toUpperCase(),
        headers: sessionOnly ? await sessionHeaders(withBody) : bearer(admin, withBody),
        ...(withBody ? { body: '{}' } : {}),
      });
      // A live stream (GET /v1/events) never ends: its status is the answer.
      const body = (res.headers.get('content-type') ?? '').includes('application/json') ? ((await res.json()) as Obj) : (await res.body?.cancel(), {});
      assert.notEqual(res.status, 405, `${where} answered 405`);
      assert.ok(!(res.status === 404 && /^no route for/.test(body.error?.message ?? '')), `${where} is not routed`);
      if (method === 'get' && !path.includes('{') && !needsQuery) assert.ok(res.status >= 200 && res.status < 300, `${where} answered ${res.status}`);
    }
  });

  it('every operation is well formed: unique operationId, tags declared, path parameters match the template, responses described', () => {
    const ids = new Set<string>();
    const tags = new Set((doc.tags as Obj[]).map((x) => x.name));
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      assert.match(path, /^\/[^:]*$/, `${where}: no :params left`);
      assert.ok(!ids.has(op.operationId), `${where}: duplicate operationId`);
      ids.add(op.operationId);
      for (const tag of op.tags) assert.ok(tags.has(tag), `${where}: tag ${tag} declared`);
      const templ = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      const declared = (op.parameters as Obj[]).filter((p) => p.in === 'path');
      assert.deepEqual(declared.map((p) => p.name).sort(), templ, `${where}: path parameters`);
      for (const p of op.parameters as Obj[]) {
        assert.ok(['path', 'query', 'header', 'cookie'].includes(p.in), `${where}: parameter location`);
        assert.equal(typeof p.name, 'string');
        assert.ok(p.schema && typeof p.schema === 'object', `${where}: ${p.name} has a schema`);
        if (p.in === 'path') assert.equal(p.required, true, `${where}: path parameter required`);
      }
      assert.ok(Object.keys(op.responses).length > 0, `${where}: responses`);
      for (const [status, r] of Object.entries(op.responses as Obj)) {
        assert.match(status, /^[1-5]\d\d$/, `${where}: status key`);
        assert.ok(r.$ref || typeof r.description === 'string', `${where} ${status}: description or $ref`);
      }
      for (const s of op.security as Obj[]) for (const name of Object.keys(s)) assert.ok(doc.components.securitySchemes[name], `${where}: scheme ${name}`);
    }
  });

  it('passes an independent OpenAPI 3.1 validator (openapi-spec-validator) where that is installed', (ctx) => {
    const script = [
      'import sys, json',
      'try:',
      '    from openapi_spec_validator import OpenAPIV31SpecValidator',
      'except ImportError:',
      '    sys.exit(3)',
      'errors = [e.message for e in OpenAPIV31SpecValidator(json.load(sys.stdin)).iter_errors()]',
      'print(json.dumps(errors))',
    ].join('\n');
    const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(doc), encoding: 'utf8', timeout: 30_000 });
    if (run.error || run.status === 3) {
      ctx.skip('python3 with openapi-spec-validator is not installed');
      return;
    }
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), []);
  });

  it('every $ref resolves inside the document', () => {
    const refs: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string') refs.push(x);
          else walk(x);
        }
      }
    };
    walk(doc);
    assert.ok(refs.length > 0);
    for (const ref of refs) {
      assert.match(ref, /^#\//);
      const target = ref
        .slice(2)
        .split('/')
        .reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
      assert.ok(target, `${ref} resolves`);
    }
  });

  it('every schema in the document is valid JSON Schema 2020-12', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'doc', components: doc.components }, 'doc');
    let count = 0;
    const check = (schema: Obj, where: string): void => {
      const rewritten = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/'));
      assert.doesNotThrow(() => ajv.compile(rewritten), where);
      count += 1;
    };
    for (const { path, method, op } of operations()) {
      for (const p of op.parameters as Obj[]) check(p.schema, `${method} ${path} ${p.name}`);
      for (const [type, media] of Object.entries((op.requestBody?.content ?? {}) as Obj)) check(media.schema, `${method} ${path} body ${type}`);
      for (const [status, r] of Object.entries(op.responses as Obj)) {
        for (const media of Object.values((r.content ?? {}) as Obj)) check(media.schema, `${method} ${path} ${status}`);
      }
    }
    assert.ok(count > 50);
  });

  it('is generated from the very schemas that validate requests', () => {
    const routes = allRoutes();
    const createKey = routes.find((r) => r.method === 'POST' && r.path === '/v1/api-keys');
    assert.ok(createKey?.body);
    // With the text defaults the validator applies too (single-line strings, capped), so the document shows what is enforced.
    const plain = (schema: object): unknown => JSON.parse(JSON.stringify(schema)); // TypeBox's symbol keys are not JSON
    assert.deepEqual(doc.paths['/v1/api-keys'].post.requestBody.content['application/json'].schema, plain(withTextDefaults(createKey.body)));
    const createJob = routes.find((r) => r.method === 'POST' && r.path === '/v1/jobs');
    assert.deepEqual(doc.paths['/v1/jobs'].post.requestBody.content['application/json'].schema, plain(withTextDefaults(createJob!.body!)));
    assert.ok(doc.paths['/v1/jobs'].post.requestBody.content['multipart/form-data']);
    // The list helper's parameters: paging, sorting, fields, the spec's filters and jobs' from/to.
    const jobParams = (doc.paths['/v1/jobs'].get.parameters as Obj[]).map((p) => p.name);
    for (const name of ['page', 'per_page', 'sort', 'fields', 'status', 'printer_id', 'priority', 'from', 'to']) assert.ok(jobParams.includes(name), name);
    const perPage = (doc.paths['/v1/printers'].get.parameters as Obj[]).find((p) => p.name === 'per_page');
    assert.equal(perPage?.schema.maximum, 100);
    // Creating POSTs document Idempotency-Key.
    for (const path of ['/v1/printers', '/v1/jobs', '/v1/webhooks', '/v1/api-keys']) {
      assert.ok((doc.paths[path].post.parameters as Obj[]).some((p) => p.name === 'Idempotency-Key' && p.in === 'header'), path);
    }
    assert.equal(doc.paths['/v1/printers'].get['x-required-scope'], 'printers:read');
  });

  it("every route's body and query schema compiles under the server's own (strict) ajv", () => {
    for (const r of allRoutes()) {
      if (r.body) assert.doesNotThrow(() => compileSchema(r.body!), `${r.method} ${r.path} body`);
      if (r.query) assert.doesNotThrow(() => compileSchema(r.query!), `${r.method} ${r.path} query`);
    }
  });

  it('request schemas enforce the decided rules', () => {
    const body = (method: string, path: string) => compileSchema(allRoutes().find((r) => r.method === method && r.path === path)!.body!);
    const printer = body('POST', '/v1/printers');
    assert.equal(printer({ name: 'mk4', connection_url: 'serial:///dev/ttyACM0' }), true);
    assert.equal(printer({ name: 'mk4' }), false);
    const action = body('POST', '/v1/printers/:id/actions');
    assert.equal(action({ action: 'home' }), true);
    assert.equal(action({ action: 'explode' }), false);
    const job = body('POST', '/v1/jobs');
    assert.equal(job({ file_url: 'https://example.com/a.gcode', priority: 'urgent', copies: 3 }), true);
    assert.equal(job({ file_url: 'ftp://example.com/a.gcode' }), false);
    assert.equal(job({ file_url: 'https://example.com/a.gcode', copies: 101 }), false);
    assert.equal(job({ file_url: 'https://example.com/a.gcode', priority: 'asap' }), false);
    const patch = body('PATCH', '/v1/printers/:id');
    assert.equal(patch({}), false, 'an empty PATCH is refused');
    assert.equal(patch({ colour: 'red' }), false, 'unknown fields are refused');
  });

});

describe('openapi helpers', () => {
  it('converts :params to {params} and derives operation ids', () => {
    assert.equal(toOpenApiPath('/v1/printers/:id/actions'), '/v1/printers/{id}/actions');
    const r = defineRoute({ method: 'POST', path: '/v1/api-keys/:id/roll', summary: '', tag: 'x', auth: 'none', responses: {}, handle() {} });
    assert.equal(operationId(r), 'postV1ApiKeysByIdRoll');
  });

  it('refuses two routes for one method and path instead of documenting either', () => {
    const route = (summary: string, path: string) => defineRoute({ method: 'GET', path, summary, tag: 'Jobs', auth: 'none', responses: {}, handle() {} });
    assert.throws(() => buildOpenApiDocument([route('a', '/v1/jobs'), route('b', '/v1/jobs')]), /two routes define GET \/v1\/jobs$/);
    // Differently named parameters still make one path for the router.
    assert.throws(() => buildOpenApiDocument([route('a', '/v1/jobs/:id'), route('b', '/v1/jobs/:job_id')]), /two routes define GET \/v1\/jobs\/:job_id/);
    assert.doesNotThrow(() => buildOpenApiDocument([route('a', '/v1/jobs'), route('b', '/v1/jobs/:id')]));
  });
});
