// The house's layering, read from the import statements of src/: data flows down, and the composition root is the only
// place that knows every feature.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const SRC = path.join(process.cwd(), 'src');
const FEATURES = ['analytics', 'auth', 'demo', 'events', 'files', 'jobs', 'materials', 'metrics', 'printers', 'scheduler', 'webhooks'];

/** Every .ts file of src/ with the src-relative folders it imports from (e.g. "printers", "app"). */
function importGraph(): Array<{ file: string; folder: string; imports: Array<{ target: string; line: string }> }> {
  const out: Array<{ file: string; folder: string; imports: Array<{ target: string; line: string }> }> = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) {
        const rel = path.relative(SRC, full);
        const imports = [...readFileSync(full, 'utf8').matchAll(/^(?:import|export)[^'"]*from\s+'(\.[^']+)'/gm)].map((m) => {
          const target = path.relative(SRC, path.resolve(path.dirname(full), m[1]!));
          return { target, line: m[0] };
        });
        out.push({ file: rel, folder: rel.includes(path.sep) ? rel.split(path.sep)[0]! : '', imports });
      }
    }
  };
  walk(SRC);
  return out;
}

const topFolder = (target: string): string => (target.includes(path.sep) ? target.split(path.sep)[0]! : '');

describe('import layers of src/', () => {
  const graph = importGraph();
  const violations = (from: (f: string) => boolean, to: (t: string) => boolean): string[] =>
    graph.filter((f) => from(f.folder)).flatMap((f) => f.imports.filter((i) => to(i.target)).map((i) => `${f.file}: ${i.line}`));

  it('reads the graph (the check sees real imports)', () => {
    assert.ok(graph.length > 100);
    assert.ok(graph.some((f) => f.folder === 'app' && f.imports.some((i) => topFolder(i.target) === 'printers')));
  });

  it('http/ (cross-cutting middleware) imports no feature and not the composition root', () => {
    assert.deepEqual(violations((f) => f === 'http', (t) => FEATURES.includes(topFolder(t)) || topFolder(t) === 'app'), []);
  });

  it('no feature imports the composition root, the command line or the server', () => {
    const up = (t: string): boolean => ['app', 'cli'].includes(topFolder(t)) || t === 'server.ts' || t === 'main.ts';
    assert.deepEqual(violations((f) => FEATURES.includes(f) || ['http', 'storage', 'protocol', 'transport', 'simulator'].includes(f), up), []);
  });

  it('events/ publishes and knows nothing of webhooks', () => {
    assert.deepEqual(violations((f) => f === 'events', (t) => topFolder(t) === 'webhooks'), []);
  });

  it('protocol/ imports nothing outside itself', () => {
    assert.deepEqual(violations((f) => f === 'protocol', (t) => topFolder(t) !== 'protocol'), []);
  });

  it('storage/, transport/ and the simulator import no feature', () => {
    assert.deepEqual(violations((f) => ['storage', 'transport', 'simulator'].includes(f), (t) => FEATURES.includes(topFolder(t))), []);
  });
});
