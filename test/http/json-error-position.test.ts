// The pure JSON error locator: a table of texts and the offset where each first goes wrong (null when valid).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jsonErrorOffset } from '../../src/http/json-error-position.js';

describe('jsonErrorOffset', () => {
  it('finds the first bad character, the end for a text that stops early, null for valid JSON', () => {
    const cases: [string, number | null][] = [
      ['{}', null],
      [' [1, -2.5e3, "a\\"b", true, null, {"x": [ ]}] ', null],
      ['"\\u00e9"', null],
      ['', 0],
      ['{', 1],
      ['{"a":1,}', 7],
      ['{"a" 1}', 5],
      ['[1 2]', 3],
      ['{\n  "name": x}', 12],
      ['abc', 0],
      ['{"a": "abc', 10],
      ['[01]', 2],
      ['{} x', 3],
      ['"tab\tinside"', 0],
      ['[' .repeat(100_000), 100_000],
    ];
    for (const [text, offset] of cases) assert.equal(jsonErrorOffset(text), offset, JSON.stringify(text.slice(0, 20)));
  });
});
