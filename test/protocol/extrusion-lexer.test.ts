// The char-scan G-code lexer under the extrusion tracker: command words, words, and numbers identical to Number().
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CH_G, CH_M, CH_T, GcodeCursor } from '../../src/protocol/gcode-words.js';

function words(line: string): { cmd: [number, number, number] | null; words: Array<[string, number]> } {
  const c = new GcodeCursor();
  if (!c.start(line)) return { cmd: null, words: [] };
  const out: Array<[string, number]> = [];
  while (c.nextWord()) out.push([String.fromCharCode(c.letter), c.value]);
  return { cmd: [c.cmdLetter, c.cmdCode, c.cmdSub], words: out };
}

test('lexer: command word, sub-code, prefixes and suffixes', () => {
  const table: Array<[string, [number, number, number] | null, Array<[string, number]>]> = [
    ['G1 X10 Y-2.5 E.04524 F1500', [CH_G, 1, -1], [['X', 10], ['Y', -2.5], ['E', 0.04524], ['F', 1500]]],
    ['g1x10y5e1.5', [CH_G, 1, -1], [['X', 10], ['Y', 5], ['E', 1.5]]],
    ['G92.1', [CH_G, 92, 1], []],
    ['M221 S95 T1', [CH_M, 221, -1], [['S', 95], ['T', 1]]],
    ['T1', [CH_T, 1, -1], []],
    ['Tc', [CH_T, -1, -1], [['C', Number.NaN]]],
    ['N123 G1 E-.8*45', [CH_G, 1, -1], [['E', -0.8]]],
    ['  \tG1\tE+1  ', [CH_G, 1, -1], [['E', 1]]],
    ['G92 E', [CH_G, 92, -1], [['E', Number.NaN]]],
    ['X1E5', [88, 1, -1], [['E', 5]]],
    ['', null, []],
    ['*12', null, []],
    ['123', null, []],
  ];
  for (const [line, cmd, ws] of table) assert.deepEqual(words(line), { cmd, words: ws }, line);
});

test('lexer: numbers equal Number() of the same text (exact doubles), fast path and long fallbacks alike', () => {
  const c = new GcodeCursor();
  // A fixed linear congruential sequence: the same cases every run, no Math.random.
  let seed = 12345;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const digits = (n: number): string => Array.from({ length: n }, () => String(next(10))).join('');
  const cases = ['0', '-0', '.5', '-.5', '+.5', '0.000001', '1.', '00012.5000', '12345678901234567890', '0.1234567890123456789', '3.14159265358979323846'];
  for (let i = 0; i < 5000; i++) {
    const sign = ['', '-', '+'][next(3)]!;
    const int = next(4) === 0 ? '' : digits(1 + next(6));
    const frac = next(3) === 0 ? '' : '.' + digits(1 + next(next(5) === 0 ? 22 : 7));
    if (int === '' && (frac === '' || frac === '.')) continue;
    cases.push(sign + int + frac);
  }
  for (const text of cases) {
    assert.ok(c.start('G1 E' + text));
    assert.ok(c.nextWord());
    assert.equal(c.value, Number(text), text);
  }
});
