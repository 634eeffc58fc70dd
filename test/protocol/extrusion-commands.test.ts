// Tables of what each command does to the measured filament: E modes, G92, firmware retraction, tools, flow, volumetric E.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExtrusionTracker, extrusionDialectFor, filamentGrams, type ExtrusionDialect } from '../../src/protocol/extrusion-tracker.js';

interface Row {
  name: string;
  lines: string[];
  dialect?: ExtrusionDialect;
  tool?: number;
  net: number;
  retracted?: number;
  extruded?: number;
  pending?: number;
}

const AREA_175 = Math.PI * 0.875 ** 2;

const rows: Row[] = [
  // ---- E modes and positions
  { name: 'relative E: moves add up, a retraction and its recovery cancel', lines: ['M83', 'G1 X1 E1.5', 'G1 E-.8', 'G1 E.8'], net: 1.5, retracted: 0.8, extruded: 1.5, pending: 0 },
  { name: 'absolute E is the boot default', lines: ['G1 E5', 'G1 E3', 'G1 E5'], net: 5, retracted: 2, extruded: 5 },
  { name: 'G92 E0 resets the absolute origin (every layer in Cura/Prusa absolute files)', lines: ['M82', 'G1 E10', 'G92 E0', 'G1 E2'], net: 12 },
  { name: 'G92 E<n> non-zero', lines: ['M82', 'G1 E10', 'G92 E100', 'G1 E101.5'], net: 11.5 },
  { name: 'G92 without E leaves E alone', lines: ['M82', 'G1 E10', 'G92 X0 Y0', 'G1 E11'], net: 11 },
  { name: 'G92 E with no number is ignored', lines: ['M82', 'G1 E10', 'G92 E', 'G1 E11'], net: 11 },
  { name: 'M82/M83 switch mid-file: relative moves advance the absolute position', lines: ['M83', 'G1 E2', 'M82', 'G1 E5'], net: 5 },
  { name: 'Marlin: G91 makes E relative, G90 absolute again', lines: ['M82', 'G91', 'G1 E2', 'G1 E2', 'G90', 'G1 E5'], net: 5 },
  { name: 'Marlin: G90 overrides an earlier M83', lines: ['M83', 'G90', 'G1 E1', 'G1 E1'], net: 1 },
  { name: 'Klipper: G90 brings back the M83 relative E', lines: ['M83', 'G91', 'G90', 'G1 E1', 'G1 E1'], dialect: 'klipper', net: 2 },
  { name: 'Klipper: G91 makes E relative even after M82', lines: ['M82', 'G91', 'G1 E1', 'G1 E1'], dialect: 'klipper', net: 2 },
  { name: 'RepRapFirmware: G91 does not touch E', lines: ['M82', 'G91', 'G1 E2', 'G1 E2'], dialect: 'reprapfirmware', net: 2 },
  { name: 'Marlin: bare G92 changes nothing', lines: ['M82', 'G1 E10', 'G92', 'G1 E12'], net: 12 },
  { name: 'Klipper: bare G92 zeroes E', lines: ['M82', 'G1 E10', 'G92', 'G1 E12'], dialect: 'klipper', net: 22 },
  { name: 'G0, G2, G3 and G5 extrude too (I/J/P/Q words skipped)', lines: ['M83', 'G0 X1 E1', 'G2 X10 Y0 I5 J0 E2', 'G3 X0 Y0 I-5 J0 E3', 'G5 I1 J1 P1 Q1 X2 Y2 E0.5'], net: 6.5 },
  { name: 'a sub-code is another command (G92.1 is not G92)', lines: ['M82', 'G1 E5', 'G92.1', 'G1 E6'], net: 6 },
  { name: 'E without a number moves nothing', lines: ['M83', 'G1 X5 E', 'G1 E1'], net: 1 },
  { name: 'lower case, compact words, leading-dot numbers', lines: ['m83', 'g1 x1 e2', 'G1X10Y5E1.5', 'G1 E.5', 'G1 E-.25', 'G1 E+.25'], net: 4 },
  { name: 'a stray line number and checksum are tolerated', lines: ['N9 M83*9', 'N10 G1 E2*87'], net: 2 },
  { name: 'commands that only carry an E-like word do not move', lines: ['M83', 'M117 E99', 'M92 E93', 'M203 E50', 'G1 E1'], net: 1 },
  // ---- retraction bookkeeping
  { name: 'retractions counted once; extra prime counts as extrusion', lines: ['M83', 'G1 X1 E5', 'G1 E-1', 'G1 E-1', 'G1 E1.5', 'G1 E1'], net: 5.5, retracted: 2, extruded: 5.5, pending: 0 },
  { name: 'a partial recovery leaves the rest pending', lines: ['M83', 'G1 X1 E5', 'G1 E-2', 'G1 E1'], net: 4, retracted: 2, extruded: 5, pending: 1 },
  { name: 'wipe-while-retracting (E- with XY) is a retraction like any other', lines: ['M83', 'G1 X1 E5', 'G1 X0 E-.56', 'G1 E-.24', 'G1 E.8'], net: 5, retracted: 0.8, extruded: 5, pending: 0 },
  // ---- firmware retraction
  { name: 'G10/G11 with Marlin defaults (M207 S3, M208 S0)', lines: ['G10', 'G11'], net: 0, retracted: 3, extruded: 0, pending: 0 },
  { name: 'a second G10 in a row is ignored', lines: ['G10', 'G10', 'G11'], net: 0, retracted: 3 },
  { name: 'G11 without G10 does nothing', lines: ['G11', 'G10', 'G11', 'G11'], net: 0, retracted: 3 },
  { name: 'M207 S sets the length', lines: ['M207 S1.5 F2400 Z0.2', 'G10', 'G11'], net: 0, retracted: 1.5 },
  { name: 'M208 S extra length is primed and counts', lines: ['M207 S1', 'M208 S0.2 F600', 'G10', 'G11'], net: 0.2, retracted: 1, extruded: 0.2 },
  { name: 'M208 S negative: the recovery is shorter', lines: ['M207 S1', 'M208 S-0.25', 'G10', 'G11'], net: -0.25, retracted: 1, extruded: 0, pending: 0.25 },
  { name: 'G10 S1 swap retraction uses M207 W (13) and M208 W', lines: ['M208 W0.5', 'G10 S1', 'G11'], net: 0.5, retracted: 13 },
  { name: 'G11 gives back what G10 pulled even if M207 changed in between', lines: ['M207 S2', 'G10', 'M207 S5', 'G11'], net: 0, retracted: 2 },
  { name: 'Klipper: retraction lengths are 0 until SET_RETRACTION', lines: ['G10', 'G11'], dialect: 'klipper', net: 0, retracted: 0 },
  {
    name: 'Klipper: SET_RETRACTION sets the length and the extra',
    lines: ['SET_RETRACTION RETRACT_LENGTH=0.5 RETRACT_SPEED=35 UNRETRACT_EXTRA_LENGTH=0.05', 'G10', 'G11', 'SET_RETRACTIONS RETRACT_LENGTH=9', 'G10'],
    dialect: 'klipper',
    net: -0.45,
    retracted: 1,
    extruded: 0.05,
    pending: 0.5,
  },
  { name: 'RepRapFirmware G10 P/L (tool setup) is not a retraction', lines: ['G10 P0 S200 R150', 'G10 L2 P1 X0', 'G11'], net: 0, retracted: 0 },
  { name: 'firmware retraction is per tool', lines: ['G10', 'T1', 'G11', 'T0', 'G11'], net: 0, retracted: 3, pending: 0 },
  { name: 'firmware retraction mixed with E moves: G10/G11 leave the E position alone', lines: ['M82', 'G1 E5', 'G10', 'G11', 'G1 E6'], net: 6, retracted: 3 },
  // ---- flow and volumetric E
  { name: 'M221 scales every E move of the active tool', lines: ['M83', 'M221 S90', 'G1 E10'], net: 9 },
  { name: 'M221 applies to firmware retraction too, so the pair still cancels', lines: ['M221 S50', 'G10', 'G11'], net: 0, retracted: 1.5 },
  { name: 'M221 without S only reports', lines: ['M83', 'M221', 'M221 T0', 'G1 E10'], net: 10 },
  { name: 'M221 T<n> sets another tool, not the active one', lines: ['M83', 'M221 T1 S50', 'G1 E10'], net: 10 },
  { name: 'M221 with an impossible tool is refused, not applied to the active one', lines: ['M83', 'M221 T20 S50', 'M221 T1.5 S50', 'G1 E10'], net: 10 },
  { name: 'M200 with an impossible tool is refused', lines: ['M83', 'M200 D1.75 T20', 'G1 E1'], net: 1 },
  { name: 'M221 T<n> is used once that tool is active', lines: ['M83', 'M221 T1 S50', 'T1', 'G1 E10'], tool: 1, net: 5 },
  { name: 'M200 D: E is mm³, converted with the M200 diameter', lines: ['M83', 'M200 D1.75', `G1 E${AREA_175 * 10}`], net: 10 },
  { name: 'M200 D0 turns volumetric E off', lines: ['M83', 'M200 D1.75', 'M200 D0', 'G1 E1'], net: 1 },
  { name: 'M200 S0 / S1 switch it with the stored diameter', lines: ['M83', 'M200 D1.75', 'M200 S0', 'G1 E1', 'M200 S1', `G1 E${AREA_175}`], net: 2 },
  { name: 'M200 alone only reports', lines: ['M83', 'M200', 'G1 E1'], net: 1 },
  { name: 'M200 D<d> T1 sets that tool\'s diameter; volumetric is on for every tool', lines: ['M83', 'M200 D2.85 T1', `G1 E${AREA_175}`], net: 1 },
  // ---- tools
  { name: 'Tn moves the counting to that tool', lines: ['M83', 'G1 E1', 'T1', 'G1 E2', 'T0', 'G1 E3'], tool: 1, net: 2 },
  { name: 'one E position shared by the tools in absolute mode (Marlin)', lines: ['M82', 'G1 E10', 'T1', 'G1 E12'], tool: 1, net: 2 },
  { name: 'T without a number, Tc, T?, T1.5 and out-of-range tools are ignored', lines: ['M83', 'T', 'Tc', 'T?', 'T99', 'T1.5', 'G1 E1'], tool: 0, net: 1 },
  { name: 'M104 T1 is not a tool change', lines: ['M83', 'M104 T1 S200', 'G1 E1'], tool: 0, net: 1 },
];

for (const r of rows) {
  test(`extrusion: ${r.name}`, () => {
    const t = new ExtrusionTracker(r.dialect ?? 'marlin');
    for (const l of r.lines) t.update(l);
    const tool = r.tool ?? 0;
    const s = t.snapshot().tools[tool];
    assert.ok(s, `tool ${tool} was used`);
    const close = (a: number, b: number, what: string): void => assert.ok(Math.abs(a - b) < 1e-9, `${what}: got ${a}, want ${b}`);
    close(s.net_mm, r.net, 'net_mm');
    if (r.retracted !== undefined) close(s.retracted_mm, r.retracted, 'retracted_mm');
    if (r.extruded !== undefined) close(s.extruded_mm, r.extruded, 'extruded_mm');
    if (r.pending !== undefined) close(s.pending_retract_mm, r.pending, 'pending_retract_mm');
    close(s.net_mm, s.extruded_mm - s.pending_retract_mm, 'net = extruded - pending');
    assert.equal(t.linesFed, r.lines.length);
  });
}

test('grams: length × π(d/2)² × density, g/cm³ taken as g per 1000 mm³', () => {
  const table: Array<[number, number, number, number]> = [
    [1000, 1.75, 1.24, 2.98255],
    [1000, 2.85, 1.24, 7.91045],
    [335.57, 1.75, 1.27, 1.02507],
    [0, 1.75, 1.24, 0],
  ];
  for (const [mm, d, rho, g] of table) assert.ok(Math.abs(filamentGrams(mm, d, rho) - g) < 5e-5, `${mm} mm of ${d} at ${rho}: ${filamentGrams(mm, d, rho)}`);
});

test('report: per tool, spools per tool, default diameter 1.75, null grams without a spool, never negative grams', () => {
  const t = new ExtrusionTracker();
  for (const l of ['M83', 'G1 E1000', 'T1', 'G1 E-2', 'T2', 'G1 E100']) t.update(l);
  const r = t.report({ 0: { density_g_cm3: 1.24 }, 1: { density_g_cm3: 1.27, diameter_mm: 2.85 } });
  assert.deepEqual(
    r.tools.map((x) => [x.tool, x.net_mm, x.grams === null ? null : Number(x.grams.toFixed(5))]),
    [
      [0, 1000, 2.98255],
      [1, -2, 0],
      [2, 100, null],
    ],
  );
  assert.equal(r.total_net_mm, 1098);
  assert.equal(r.total_retracted_mm, 2);
  assert.equal(r.grams_complete, false);
  assert.equal(Number(r.total_grams.toFixed(5)), 2.98255);
  assert.equal(r.lines, 6);
});

test('M600/M701/M702 are counted as firmware filament moves, not guessed into net_mm', () => {
  const t = new ExtrusionTracker();
  for (const l of ['M83', 'G1 E5', 'M600', 'M701 T0', 'M702', 'M600 B2']) t.update(l);
  const r = t.report();
  assert.deepEqual(r.firmware_moves, { M600: 2, M701: 1, M702: 1 });
  assert.equal(r.tools[0]!.net_mm, 5);
});

test('volumetric_seen stays true after M200 D0 and survives a snapshot', () => {
  const t = new ExtrusionTracker();
  for (const l of ['M200 D1.75', 'M200 D0']) t.update(l);
  assert.equal(ExtrusionTracker.restore(t.snapshot()).report().volumetric_seen, true);
  t.resetTotals();
  assert.equal(t.report().volumetric_seen, false);
});

test('resetTotals keeps the firmware state; reset goes back to boot', () => {
  const t = new ExtrusionTracker();
  for (const l of ['M83', 'M221 S90', 'M207 S1', 'T1', 'G1 E10', 'G10']) t.update(l);
  t.resetTotals();
  let s = t.snapshot();
  assert.equal(s.relative_e, true);
  assert.equal(s.active_tool, 1);
  assert.equal(s.fw_retract.length_mm, 1);
  assert.equal(s.tools[1]!.fw_retract_mm, 1, 'still firmware-retracted: the next G11 recovers');
  assert.equal(s.tools[1]!.net_mm, 0);
  assert.equal(s.lines, 0);
  t.update('G11');
  assert.equal(t.netMm(1), 1, 'the recovery after a reset counts forwards (its retraction was before the job)');
  t.reset();
  s = t.snapshot();
  assert.equal(s.relative_e, false);
  assert.equal(s.active_tool, 0);
  assert.equal(s.fw_retract.length_mm, 3);
  assert.equal(s.tools.length, 1);
});

test('snapshot is a copy, is plain JSON, and restore refuses a damaged one naming the field', () => {
  const t = new ExtrusionTracker('klipper');
  for (const l of ['M83', 'G1 E2', 'T1', 'G10']) t.update(l);
  const snap = t.snapshot();
  snap.tools[0]!.net_mm = 999;
  assert.equal(t.netMm(0), 2, 'mutating the snapshot does not touch the tracker');
  const back = ExtrusionTracker.restore(JSON.parse(JSON.stringify(t.snapshot())));
  assert.deepEqual(back.snapshot(), t.snapshot());
  assert.equal(back.snapshot().dialect, 'klipper');
  assert.throws(() => ExtrusionTracker.restore({ ...t.snapshot(), version: 2 }), /extrusion snapshot is not valid \(\/version/);
  assert.throws(() => ExtrusionTracker.restore({ ...t.snapshot(), tools: [{ net_mm: 'x' }] }), /\/tools\/0/);
  assert.throws(() => ExtrusionTracker.restore({ ...t.snapshot(), e_position: Number.NaN }), /not/);
  assert.throws(() => ExtrusionTracker.restore(null), /not valid/);
  assert.throws(() => ExtrusionTracker.restore({ ...t.snapshot(), active_tool: 1e9 }), /\/active_tool/);
});

test('dialect from the firmware profile name', () => {
  assert.deepEqual(
    ['marlin', 'prusa', 'repetier', 'smoothieware', 'generic', 'klipper', 'reprapfirmware'].map(extrusionDialectFor),
    ['marlin', 'marlin', 'marlin', 'marlin', 'marlin', 'klipper', 'reprapfirmware'],
  );
});
