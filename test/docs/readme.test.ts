// Keeps README.md true to the code: the two set-up commands on top, every route with its scope and status, flags, scripts, commands.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { commands } from '../../src/cli/commands.js';
import { CONFIG_DEFAULTS, envVarFor } from '../../src/config.js';
import { allRoutes } from '../../src/http/routes-index.js';
import type { RouteAuth } from '../../src/http/route.js';

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

const scopeText = (auth: RouteAuth): string => (auth === 'none' ? 'none' : auth === 'key' ? 'any key' : auth.scope);

describe('README.md', () => {
  it('starts with exactly the two set-up commands, start then test', () => {
    assert.ok(readme.startsWith('```sh\nnpm ci && npm start\n```\n\n```sh\nnpm ci && npm test\n```\n'));
  });

  it('lists every route with its method, scope, success status and availability', () => {
    const rows = tableAfter('### Endpoints');
    const documented = new Map(rows.map(([method, p, scope, success, status]) => [`${method} ${p}`, { scope, success, status }]));
    const routes = allRoutes();
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      const row = documented.get(key);
      assert.ok(row, `README documents ${key}`);
      assert.equal(row.scope, scopeText(route.auth), `scope of ${key}`);
      const success = Object.keys(route.responses).find((s) => s.startsWith('2'));
      assert.equal(row.success?.split(' ')[0], success, `success status of ${key}`);
      assert.equal(row.status, route.planned || !route.handle ? 'planned' : 'available', `status of ${key}`);
    }
    const known = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const key of documented.keys()) assert.ok(known.has(key), `README row ${key} is a real route`);
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
