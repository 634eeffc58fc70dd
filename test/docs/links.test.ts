// Every relative link and anchor in README.md and docs/*.md resolves, and every heading of the old README is found where the map says it went.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { apiDocument } from '../../src/app/routes-index.js';
import { headingsOf, relativeLinksOf } from './markdown-links.js';

const files = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f))];
const anchorsOf = (file: string): Set<string> => new Set(headingsOf(readFileSync(file, 'utf8')).map((h) => h.anchor));

describe('the manual', () => {
  it('has no broken relative link or anchor in README.md and docs/*.md', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const link of relativeLinksOf(readFileSync(file, 'utf8'))) {
        const [target, anchor] = link.split('#') as [string, string | undefined];
        const resolved = target ? path.normalize(path.join(path.dirname(file), decodeURIComponent(target))) : file;
        if (!existsSync(resolved)) broken.push(`${file}: ${link} (no file ${resolved})`);
        else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${file}: ${link} (no heading #${anchor} in ${resolved})`);
      }
    }
    assert.deepEqual(broken, [], broken.join('\n'));
  });

  it('keeps every heading of the old README, where docs/old-readme-headings.tsv says it went', () => {
    const doc = apiDocument() as Record<string, any>;
    const lost: string[] = [];
    const rows = readFileSync('docs/old-readme-headings.tsv', 'utf8').split('\n').filter((l) => l && !l.startsWith('# Every') && !l.startsWith('# heading'));
    assert.ok(rows.length > 100, 'the list holds the old README\'s headings');
    for (const row of rows) {
      const [heading, where] = row.split('\t') as [string, string];
      const text = heading.replace(/^#+ /, '');
      if (where === 'README.md') {
        if (!headingsOf(readFileSync('README.md', 'utf8')).some((h) => h.text === text)) lost.push(`${heading}: not in README.md`);
      } else if (where.startsWith('docs/')) {
        const [file, anchor] = where.split('#') as [string, string];
        if (!existsSync(file) || !anchorsOf(file).has(anchor)) lost.push(`${heading}: no #${anchor} in ${file}`);
      } else if (where === 'openapi:info') {
        if (!/^##/.test(heading) || heading.startsWith('## ')) continue; // the reference's own title and intro
        if (!String(doc.info.description).includes(`# ${text}\n`)) lost.push(`${heading}: not in the document's introduction`);
      } else if (where.startsWith('openapi:tag:')) {
        const tag = (doc.tags as { name: string; description?: string }[]).find((t) => t.name === where.slice('openapi:tag:'.length));
        if (heading.startsWith('#### ') || heading.startsWith('##### ')) {
          if (!tag?.description?.includes(`# ${text}\n`)) lost.push(`${heading}: not in the description of tag ${where.slice(12)}`);
        } else if (!tag?.description) lost.push(`${heading}: tag ${where.slice(12)} has no description`);
      } else if (where.startsWith('openapi:route:')) {
        const [method, p] = where.slice('openapi:route:'.length).split(' ') as [string, string];
        const op = doc.paths[p.replace(/[:*]([A-Za-z_]\w*)/g, '{$1}')]?.[method.toLowerCase()];
        if (!op?.description) lost.push(`${heading}: ${method} ${p} has no description in the document`);
      } else if (where !== 'openapi:paths') lost.push(`${heading}: unknown destination ${where}`);
    }
    assert.deepEqual(lost, [], lost.join('\n'));
  });
});
