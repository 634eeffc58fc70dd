// Keeps README.md true to the code: the set-up commands on top, every served route with its fields and an example, no other route, flags, scripts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { commands } from '../../src/cli/commands.js';
import { CONFIG_DEFAULTS, envVarFor } from '../../src/config.js';
import { allRoutes } from '../../src/app/routes-index.js';
import type { AnyRouteDef, RouteAuth } from '../../src/http/route.js';

const readme = readFileSync(path.join(process.cwd(), 'README.md'), 'utf8');

/** Rows of the markdown table that follows `heading`, as trimmed cells without backticks. */
function tableAfter(heading: string): string[][] {
  const start = readme.indexOf(heading);
  assert.ok(start >= 0, `README has "${heading}"`);
  const lines = readme.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split('|').map((c) => c.trim().replace(/`/g, '')));
  }
  return rows;
}

/** The text under a heading, up to the next heading of any level. */
function sectionOf(heading: string): string {
  const start = readme.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `README has the heading ${heading}`);
  const rest = readme.slice(start + heading.length + 2);
  const next = rest.search(/^#{1,4} /m);
  return next < 0 ? rest : rest.slice(0, next);
}

const bodyProperties = (route: AnyRouteDef): Record<string, unknown> =>
  (route.body as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};

const scopeText = (auth: RouteAuth): string =>
  auth === 'none' ? 'none' : auth === 'key' ? 'any key' : auth === 'session' ? 'session cookie' : auth.scope;

describe('README.md', () => {
  it('starts with exactly the two set-up commands, start then test', () => {
    assert.ok(readme.startsWith('```sh\nnpm ci && npm start -- --demo 3\n```\n\n```sh\nnpm ci && npm test\n```\n'));
  });

  it('lists every served route with its method, scope and success status, and nothing else', () => {
    const rows = tableAfter('### Endpoints');
    const documented = new Map(rows.map(([method, p, scope, success]) => [`${method} ${p}`, { scope, success }]));
    const served = allRoutes();
    for (const route of served) {
      const key = `${route.method} ${route.path}`;
      const row = documented.get(key);
      assert.ok(row, `README documents ${key}`);
      assert.equal(row.scope, scopeText(route.auth), `scope of ${key}`);
      const success = Object.keys(route.responses).find((s) => s.startsWith('2'));
      assert.equal(row.success?.split(' ')[0], success, `success status of ${key}`);
    }
    const known = new Set(served.map((r) => `${r.method} ${r.path}`));
    for (const key of documented.keys()) assert.ok(known.has(key), `README row ${key} is a served route`);
  });

  it('has a section per served route with every request field, query parameter and a curl example', () => {
    for (const route of allRoutes()) {
      const key = `${route.method} ${route.path}`;
      const text = sectionOf(`#### \`${key}\``);
      const rowNames = new Set([...text.matchAll(/^\| ([^|]+) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`([^`]+)`/g)].map((n) => n[1]!)));
      for (const [field, schema] of Object.entries(bodyProperties(route))) {
        if ((schema as { readOnly?: boolean }).readOnly) continue;
        assert.ok(rowNames.has(field), `${key} documents body field ${field} in a table row`);
      }
      const queryNames = route.list
        ? ['page', 'per_page', 'sort', 'fields', ...Object.keys(route.list.filters ?? {})]
        : Object.keys((route.query as { properties?: object } | undefined)?.properties ?? {});
      for (const name of queryNames) assert.ok(rowNames.has(name), `${key} documents query parameter ${name}`);
      const example = /```sh\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
      assert.match(example, /\bcurl\b/, `${key} has a curl example`);
      const pathPattern = route.path
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        .replace(/:[a-z_]+/g, '[A-Za-z0-9_]+')
        // A wildcard (`*storage`) is one or more path segments.
        .replace(/\\\*[a-z_]+/g, '[^\\s]+');
      assert.match(example, new RegExp(`http://localhost:8080${pathPattern}\\b`), `${key}: the example calls its path`);
      if (route.method !== 'GET') assert.match(example, new RegExp(`-X ${route.method}\\b`), `${key}: the example uses ${route.method}`);
      if (route.auth === 'session') assert.match(example, /printfarm_session=/, `${key}: the example sends the session cookie`);
      // The slicers' host APIs are called as slicers call them, with the slicer key in X-Api-Key.
      else if (typeof route.auth === 'object' && route.auth.scope === 'slicer:upload') assert.match(example, /X-Api-Key: \$SLICER_KEY/, `${key}: the example sends the slicer key`);
      else if (route.auth !== 'none') assert.match(example, /Authorization: Bearer \$KEY/, `${key}: the example sends a key`);
      if (route.body) assert.match(example, / -d '\{/, `${key}: the example sends a body`);
    }
  });

  it('shows only well-formed JSON in its examples', () => {
    for (const [, block] of readme.matchAll(/```json\n([\s\S]*?)```/g)) {
      assert.doesNotThrow(() => JSON.parse(block!), `valid JSON:\n${block}`);
    }
  });

  it('documents every serve flag with its environment variable and default', () => {
    const rows = tableAfter('| Flag | Environment variable |');
    const defaults: Record<string, string> = {
      host: CONFIG_DEFAULTS.host,
      port: String(CONFIG_DEFAULTS.port),
      'data-dir': CONFIG_DEFAULTS.dataDir,
      env: CONFIG_DEFAULTS.env,
    };
    for (const [flag, value] of Object.entries(defaults)) {
      const row = rows.find((r) => r[0]?.split(' ')[0] === `--${flag}`);
      assert.ok(row, `README documents --${flag}`);
      assert.equal(row[1], envVarFor(flag));
      assert.equal(row[2], value, `default of --${flag}`);
    }
  });

  it('documents the settings that have only an environment variable, with their defaults', () => {
    const rows = tableAfter('| Flag | Environment variable |');
    const envOnly: Record<string, string> = {
      PRINTFARM_LOG_LEVEL: CONFIG_DEFAULTS.logLevel,
      PRINTFARM_TRUST_PROXY: CONFIG_DEFAULTS.trustProxy ? '1' : '0',
    };
    for (const [variable, value] of Object.entries(envOnly)) {
      const row = rows.find((r) => r[1] === variable);
      assert.ok(row, `README documents ${variable}`);
      assert.equal(row[0], '', `${variable} has no flag`);
      assert.equal(row[2], value, `default of ${variable}`);
    }
  });

  it('mentions only npm scripts and CLI commands that exist', () => {
    for (const [, script] of readme.matchAll(/npm run ([a-z:-]+)/g)) {
      assert.ok(script! in pkg.scripts, `package.json has script "${script}"`);
    }
    const names = new Set(commands.map((c) => c.name));
    for (const [, command] of readme.matchAll(/`printfarm ([a-z]+)[ `]/g)) {
      assert.ok(names.has(command!), `CLI has command "${command}"`);
    }
  });
});
