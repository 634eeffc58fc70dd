// Keeps the queue guide (docs/queue.md) true to the code: its waiting-reason table lists every code with the words an operator reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { WAITING_REASON_TEXT, WAITING_REASONS } from '../../src/scheduler/waiting-reasons.js';

test('docs/queue.md: the waiting-reason table equals WAITING_REASONS and their words', () => {
  const doc = readFileSync(path.join(process.cwd(), 'docs', 'queue.md'), 'utf8');
  const lines = doc.slice(doc.indexOf('## Waiting reasons')).split('\n');
  const first = lines.findIndex((l) => l.startsWith('| Code'));
  assert.ok(first > 0, 'the table is there');
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split('|').map((c) => c.trim().replace(/`/g, '')));
  }
  assert.deepEqual(
    rows,
    WAITING_REASONS.map((code) => [code, WAITING_REASON_TEXT[code].label, WAITING_REASON_TEXT[code].detail]),
  );
});
