// The folder grammar of slicer uploads, as a table: what each path a person might type becomes, or the words refusing it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSlicerTarget } from '../../src/slicer/slicer-target.js';

const ok: [string, string, Record<string, unknown>][] = [
  ['', 'benchy.gcode', { fileName: 'benchy.gcode', jobName: 'benchy', format: 'gcode', folders: [] }],
  ['/', 'benchy.gco', { jobName: 'benchy', format: 'gcode' }],
  ['group/bay-1', 'benchy.gcode', { group: 'bay-1' }],
  ['/group/bay-1/', 'benchy.gcode', { group: 'bay-1', folders: ['group', 'bay-1'] }],
  ['group\\bay-1\\x3', 'benchy.gcode', { group: 'bay-1', copies: 3 }],
  ['printer/prusa-3/urgent', 'benchy.bgcode', { printer: 'prusa-3', priority: 'urgent', format: 'bgcode', jobName: 'benchy' }],
  ['URGENT/X2', 'a.gcode', { priority: 'urgent', copies: 2 }],
  ['', 'group/bay-2/x100/a.gcode', { group: 'bay-2', copies: 100, fileName: 'a.gcode' }],
  // PrusaSlicer on Linux sends a typed `a\b\c.gcode` as one name: backslashes are folders wherever they stand.
  ['', 'high\\café ünï.gcode', { priority: 'high', fileName: 'café ünï.gcode', jobName: 'café ünï' }],
  ['group/Bay 1', 'x.gcode', { group: 'Bay 1' }],
  // A sliced 3MF is taken by its name (the file store refuses one that was never sliced); the job drops both extensions.
  ['printer/p1s-left', 'plate.gcode.3mf', { printer: 'p1s-left', format: '3mf', fileName: 'plate.gcode.3mf', jobName: 'plate' }],
  ['', 'Bracket.3MF', { format: '3mf', jobName: 'Bracket' }],
];

for (const [folder, name, want] of ok) {
  test(`reads ${JSON.stringify(folder)} + ${JSON.stringify(name)}`, () => {
    const got = parseSlicerTarget(folder, name);
    assert.ok(!('status' in got), `refused: ${JSON.stringify(got)}`);
    for (const [k, v] of Object.entries(want)) assert.deepEqual((got as unknown as Record<string, unknown>)[k], v, k);
  });
}

const refused: [string, string, number, RegExp][] = [
  ['', 'model.stl', 415, /3D model, not a print: slice it first/],
  ['', 'notes.txt', 415, /not G-code: the farm takes \.gcode, \.gco, \.g, Prusa's binary \.bgcode and sliced 3MF \(\.gcode\.3mf\)/],
  ['../etc', 'a.gcode', 400, /may not contain "\.\."/],
  ['group/..', 'a.gcode', 400, /may not contain "\.\."/],
  ['', `${'n'.repeat(300)}.gcode`, 400, /306 characters long; the farm keeps names up to 255/],
  ['stuff', 'a.gcode', 400, /unknown folder "stuff": the farm reads group\/<group>, printer\/<printer name or id>, x<copies>/],
  ['group', 'a.gcode', 400, /must be followed by the group's name/],
  ['x0', 'a.gcode', 400, /asks for 0 copies; the farm makes 1 to 100/],
  ['x101', 'a.gcode', 400, /asks for 101 copies/],
  ['x2/x3', 'a.gcode', 400, /names a number of copies twice/],
  ['high/low', 'a.gcode', 400, /names a priority twice/],
  ['group/a/printer/b', 'a.gcode', 400, /both a group and a printer/],
  ['', '', 400, /no file name/],
  ['', 'a\u0007.gcode', 400, /control character/],
];

for (const [folder, name, status, message] of refused) {
  test(`refuses ${JSON.stringify(folder)} + ${JSON.stringify(name.slice(0, 20))} with ${status}`, () => {
    const got = parseSlicerTarget(folder, name);
    assert.ok('status' in got, `accepted: ${JSON.stringify(got)}`);
    assert.equal(got.status, status);
    assert.match(got.message, message);
  });
}
