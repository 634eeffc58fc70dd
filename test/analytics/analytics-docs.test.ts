// Keeps docs/analytics.md (the README text for the analytics routes) true to the code, with the README's own checks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { analyticsRoutes } from '../../src/analytics/analytics.routes.js';

const doc = readFileSync(path.join(process.cwd(), 'docs/analytics.md'), 'utf8');

function sectionOf(heading: string): string {
  const start = doc.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `docs/analytics.md has the heading ${heading}`);
  const rest = doc.slice(start + heading.length + 2);
  const next = rest.search(/^#{1,4} /m);
  return next < 0 ? rest : rest.slice(0, next);
}

describe('docs/analytics.md', () => {
  it('has an available Endpoints row per analytics route with its scope and success status', () => {
    for (const route of analyticsRoutes) {
      const row = doc.split('\n').find((l) => l.startsWith(`| ${route.method} | \`${route.path}\` |`));
      assert.ok(row, `row for ${route.path}`);
      const cells = row.slice(1, -1).split('|').map((c) => c.trim().replace(/`/g, ''));
      assert.equal(cells[2], (route.auth as { scope: string }).scope);
      assert.equal(cells[3]!.split(' ')[0], Object.keys(route.responses).find((s) => s.startsWith('2')));
      assert.equal(cells[4], 'available');
    }
  });

  it('documents every query parameter in a table row, with a curl example calling the path with a key', () => {
    for (const route of analyticsRoutes) {
      const text = sectionOf(`#### \`${route.method} ${route.path}\``);
      const rowNames = new Set([...text.matchAll(/^\| ([^|]+) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`([^`]+)`/g)].map((n) => n[1]!)));
      for (const name of Object.keys((route.query as { properties?: object }).properties ?? {})) {
        assert.ok(rowNames.has(name), `${route.path} documents ${name}`);
      }
      const example = /```sh\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
      const pathPattern = route.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[a-z_]+/g, '[A-Za-z0-9_]+');
      assert.match(example, new RegExp(`http://localhost:8080${pathPattern}\\b`));
      assert.match(example, /Authorization: Bearer \$KEY/);
    }
  });

  it('shows only well-formed JSON', () => {
    const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)];
    assert.ok(blocks.length >= 5);
    for (const [, block] of blocks) assert.doesNotThrow(() => JSON.parse(block!), block);
  });
});
