// MeatPack packing against tables made by hand from the public description, and the line encoder as a transcript of bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropSpaces, isEmergencyLine, meatpackCommand, MeatPackCommand, packLine, parseMeatPackReport } from '../../src/protocol/meatpack.js';
import { LineEncoder } from '../../src/protocol/line-encoder.js';
import { MeatPackUnpacker } from '../../src/simulator/meatpack-unpacker.js';
import { seededRandom } from '../helpers/seeded-random.js';

const hex = (b: Buffer | string): string => (typeof b === 'string' ? Buffer.from(b, 'latin1') : b).toString('hex').replace(/(..)/g, '$1 ').trim();

/** Independent of src/: the XOR of a string's bytes. */
function xor(s: string): number {
  let cs = 0;
  for (const c of Buffer.from(s, 'latin1')) cs ^= c;
  return cs;
}

// Codes: '0'-'9' 0-9, '.' A, ' ' B (E in no-spaces mode), '\n' C, 'G' D, 'X' E, F = literal follows.
// A byte is (second << 4) | first; literals follow in order; a lone last '\n' is padded (here with another C).
test('packing table, spaces kept: pairs, literals first / second / both, the padded newline', () => {
  const rows: Array<[line: string, bytes: string, why: string]> = [
    ['G1 X10\n', '1d eb 01 cc', "G,1 | ' ',X | 1,0 | \\n alone"],
    ['G0 X1.5\n', '0d eb a1 c5', "G,0 | ' ',X | 1,. | 5,\\n"],
    ['M105\n', '1f 4d 50 cc', "M literal + 1 | 0,5 | \\n alone"],
    ['G1 Y2\n', '1d fb 59 c2', "G,1 | ' ',Y literal second (byte FB, then 'Y') | 2,\\n"],
    ['M117 Hi!\n', '1f 4d 71 fb 48 ff 69 21 cc', "M lit,1 | 1,7 | ' ',H lit | i,! both literal | \\n alone"],
    ['X1Y\n', '1e cf 59', "X,1 | Y literal first, \\n packed second (byte CF, then 'Y')"],
  ];
  for (const [line, bytes, why] of rows) assert.equal(hex(packLine(line, false)), bytes, `${JSON.stringify(line)}: ${why}`);
});

test("packing table, no-spaces mode: 'E' takes the space's code, a space left in a line goes as a literal", () => {
  const rows: Array<[line: string, bytes: string]> = [
    // N literal first, 1 | G,1 | X,2 | E,3 | * literal first, 2 | 1,\n
    ['N1G1X2E3*21\n', '1f 4e 1d 2e 3b 2f 2a c1'],
    ['E5\n', '5b cc'],
    // M117 keeps its space: both ' ' and 'A' are literals.
    ['M117 A\n', '1f 4d 71 ff 20 41 cc'],
  ];
  for (const [line, bytes] of rows) assert.equal(hex(packLine(line, true)), bytes, JSON.stringify(line));
  // With spaces kept, 'E' is a literal: first literal, '5' packed second (byte 5F, then 'E').
  assert.equal(hex(packLine('E5\n', false)), '5f 45 cc');
});

test('no-spaces: moves lose their spaces and get the checksum of what is left; other lines stay as they are', () => {
  const framed = `N1 G1 X2 E3*${xor('N1 G1 X2 E3')}\n`;
  assert.equal(dropSpaces(framed), `N1G1X2E3*${xor('N1G1X2E3')}\n`);
  assert.equal(xor('N1G1X2E3'), 21);
  for (const keep of ['N2 M117 Hello world*9\n', 'N3 G28 X*1\n', 'N4 G92 E0*1\n', 'N5 G10*1\n', 'M117 a b\n']) {
    assert.equal(dropSpaces(keep), keep, keep);
  }
  assert.equal(dropSpaces('G0 X1 Y2\n'), 'G0X1Y2\n');
  assert.equal(dropSpaces('N9 g3 X1 Y1 I1 J0*0\n'), `N9g3X1Y1I1J0*${xor('N9g3X1Y1I1J0')}\n`);
});

test('signal bytes: two 0xFF then the command', () => {
  assert.equal(hex(meatpackCommand(MeatPackCommand.enablePacking)), 'ff ff fb');
  assert.equal(hex(meatpackCommand(MeatPackCommand.disablePacking)), 'ff ff fa');
  assert.equal(hex(meatpackCommand(MeatPackCommand.togglePacking)), 'ff ff fd');
  assert.equal(hex(meatpackCommand(MeatPackCommand.resetAll)), 'ff ff f9');
  assert.equal(hex(meatpackCommand(MeatPackCommand.queryConfig)), 'ff ff f8');
  assert.equal(hex(meatpackCommand(MeatPackCommand.enableNoSpaces)), 'ff ff f7');
  assert.equal(hex(meatpackCommand(MeatPackCommand.disableNoSpaces)), 'ff ff f6');
});

test('the firmware report and the emergency commands are recognised', () => {
  assert.deepEqual(parseMeatPackReport('[MP] PV01 ON NSP'), { active: true, noSpaces: true });
  assert.deepEqual(parseMeatPackReport('[MP] PV01 OFF ESP'), { active: false, noSpaces: false });
  assert.equal(parseMeatPackReport('echo:[MP] nothing'), null);
  for (const yes of ['M108\n', 'N12 M108*99\n', 'M112\n', 'N3 M410*1\n', 'm112\n']) assert.ok(isEmergencyLine(yes), yes);
  for (const no of ['M1080\n', 'M11\n', 'N1 G1 X108*1\n', 'M117 M112\n', 'M108.1\n']) assert.ok(!isEmergencyLine(no), no);
});

test('line encoder transcript: text until packing is confirmed, packed lines, M108 as text between disable and enable, then text for good', () => {
  const enc = new LineEncoder();
  assert.equal(enc.encode('N0 M110 N0*125\n').toString('latin1'), 'N0 M110 N0*125\n');
  enc.startPacking(true);
  const two = `N1 G1 X2 E3*${xor('N1 G1 X2 E3')}\nN2 M105*${xor('N2 M105')}\n`;
  // N2 M105*<cs>: N lit,2 | ' ' lit, M lit | 1,0 | 5,* lit | digits of the checksum | \n
  const cs2 = String(xor('N2 M105'));
  assert.equal(cs2, '37');
  assert.equal(hex(enc.encode(two) as Buffer), '1f 4e 1d 2e 3b 2f 2a c1 2f 4e ff 20 4d 01 f5 2a 73 cc');
  const brk = `N3 M108*${xor('N3 M108')}\n`;
  assert.equal(hex(enc.encode(brk) as Buffer), `ff ff fa 0a ${hex(brk)} ff ff fb`);
  assert.equal(hex(enc.encode('\n') as Buffer), 'cc');
  enc.stopPacking();
  assert.equal(hex(enc.encode('N4 M105*36\n') as Buffer), `ff ff fa ${hex('N4 M105*36\n')}`);
  assert.equal(enc.encode('N5 M105*37\n').toString('latin1'), 'N5 M105*37\n');
});

test('wireLength is the encoded size of a line, in every mode', () => {
  const enc = new LineEncoder();
  const lines = ['N10 G1 X12.5 Y3 E0.25*77\n', 'N11 M117 Hello there*1\n', 'N12 M108*5\n', 'N13 G28*18\n'];
  for (const mode of ['plain', 'spaces', 'nospaces'] as const) {
    if (mode !== 'plain') enc.startPacking(mode === 'nospaces');
    for (const l of lines) assert.equal(enc.wireLength(l), Buffer.from(enc.encode(l) as Buffer | string).length, `${mode}: ${l}`);
  }
});

test('round trip through the firmware-side unpacker (written apart from the packer): random G-code, both modes', () => {
  const rnd = seededRandom(7);
  const alphabet = 'GXYZEFMNST0123456789.- *;abc';
  for (const noSpaces of [false, true]) {
    const reports: string[] = [];
    const u = new MeatPackUnpacker((s) => reports.push(`${s.active} ${s.noSpaces}`));
    const enc = new LineEncoder();
    const feed = (b: Buffer | string): string => {
      let out = '';
      for (const x of Buffer.from(b as Buffer)) out += u.push(x);
      return out;
    };
    feed(Buffer.concat([meatpackCommand(MeatPackCommand.enablePacking), meatpackCommand(noSpaces ? MeatPackCommand.enableNoSpaces : MeatPackCommand.disableNoSpaces)]));
    assert.deepEqual(reports, ['true false', `true ${noSpaces}`]);
    enc.startPacking(noSpaces);
    for (let i = 0; i < 500; i++) {
      const len = 1 + Math.floor(rnd() * 30);
      let body = i % 3 === 0 ? 'G1 ' : '';
      for (let k = 0; k < len; k++) body += alphabet[Math.floor(rnd() * alphabet.length)];
      body = body.trim() || 'M105';
      const framed = `N${i} ${body}*${xor(`N${i} ${body}`)}\n`;
      const expected = noSpaces ? dropSpaces(framed) : framed;
      assert.equal(feed(enc.encode(framed) as Buffer), expected, JSON.stringify(framed));
    }
  }
});
