// The extrusion tracker fed real-shaped slicer output line by line: its grams must match each slicer's own total within 0.5 %.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExtrusionTracker } from '../../src/protocol/extrusion-tracker.js';
import { stripGcodeLine } from '../../src/protocol/framing.js';
import { MotionTracker } from '../../src/protocol/motion-tracker.js';
import { curaJob, orcaSlicerJob, prusaSlicerJob, twoToolPrusaJob, type SlicerFixture } from './fixtures/slicer-fixtures.js';
import { readSlicerTotals } from './fixtures/slicer-totals.js';

/** What the session will send: every non-empty stripped line, in order. */
function wireLines(text: string): string[] {
  return text
    .split('\n')
    .map(stripGcodeLine)
    .filter((l) => l !== '');
}

function run(fx: SlicerFixture, tracker = new ExtrusionTracker()): ExtrusionTracker {
  for (const l of wireLines(fx.text)) tracker.update(l);
  return tracker;
}

function spools(fx: SlicerFixture): Array<{ diameter_mm: number; density_g_cm3: number }> {
  return fx.densities.map((d) => ({ diameter_mm: fx.diameterMm, density_g_cm3: d }));
}

const fixtures: SlicerFixture[] = [prusaSlicerJob(), curaJob(), orcaSlicerJob(), twoToolPrusaJob(), curaJob({ tools: 2 })];

for (const fx of fixtures) {
  test(`${fx.name}: grams per tool within 0.5 % of the slicer's own total`, () => {
    const report = run(fx).report(spools(fx));
    const slicer = readSlicerTotals(fx.text, fx.diameterMm, fx.densities);
    assert.equal(report.tools.length, slicer.gramsPerTool.length, 'one tool in the report per tool in the file');
    report.tools.forEach((t, i) => {
      const expected = slicer.gramsPerTool[i]!;
      const rel = Math.abs(t.grams! - expected) / expected;
      assert.ok(rel < 0.005, `tool ${i}: measured ${t.grams!.toFixed(3)} g, slicer says ${expected} g (${(rel * 100).toFixed(3)} %) [${slicer.source}]`);
      // The whole difference is explained: the start script's purge (melted, not in the slicer's count) minus what is
      // still retracted at the end (counted by the slicer, never melted). The rest is the file's rounding (Cura: 0.1 mm).
      const explained = slicer.mmPerTool[i]! + fx.scriptMm[i]! - t.pending_retract_mm;
      assert.ok(Math.abs(t.net_mm - explained) < 0.06, `tool ${i}: net ${t.net_mm} mm, slicer ${slicer.mmPerTool[i]} + script ${fx.scriptMm[i]} - pending ${t.pending_retract_mm}`);
      assert.ok(Math.abs(t.net_mm - (t.extruded_mm - t.pending_retract_mm)) < 1e-6);
      assert.ok(t.retracted_mm > 0, 'the job retracts');
    });
    if (slicer.totalGrams !== null) {
      assert.ok(Math.abs(report.total_grams - slicer.totalGrams) / slicer.totalGrams < 0.005, `total ${report.total_grams} vs ${slicer.totalGrams}`);
    }
    assert.ok(report.grams_complete);
    assert.equal(report.volumetric_seen, false);
  });
}

test('Cura file: the absolute E passes 10 m and is reset with G92 E0 mid-print, and the end script retracts in G91', () => {
  const fx = curaJob();
  const lines = wireLines(fx.text);
  const firstLayer = lines.indexOf('M107');
  assert.ok(lines.slice(firstLayer).includes('G92 E0'), 'a reset inside the print body');
  const t = run(fx);
  const tool = t.report().tools[0]!;
  // Cura's own starting retraction (5) was primed back; the last travel retraction (5) and the end script's 2 + 2 are pending.
  assert.ok(Math.abs(tool.pending_retract_mm - 9) < 1e-6, `pending ${tool.pending_retract_mm}`);
  assert.equal(t.isRelativeE, false, 'M82 at the end of the script');
});

test('PrusaSlicer file with the printer start script at M221 S95: the wire carries 5 % less than the slicer counted', () => {
  const full = run(prusaSlicerJob()).report().tools[0]!;
  const fx = prusaSlicerJob({ flowPercent: 95 });
  const reduced = run(fx).report(spools(fx)).tools[0]!;
  // The intro line runs before M221 S95, everything after it (and the end script resets to 100 %).
  const intro = 21.5;
  assert.ok(Math.abs(reduced.net_mm - (intro + (full.net_mm - intro) * 0.95)) < 1e-6);
  assert.equal(reduced.flow_percent, 100, 'the end script resets the flow');
});

test('a snapshot taken mid-job, serialised and restored, carries on exactly like the uninterrupted tracker', () => {
  for (const fx of [twoToolPrusaJob(), orcaSlicerJob(), curaJob({ tools: 2 })]) {
    const lines = wireLines(fx.text);
    const whole = new ExtrusionTracker();
    for (const l of lines) whole.update(l);
    // Cut at several points, including inside a firmware retraction and right after a tool change.
    for (const cut of [1, Math.floor(lines.length / 3), lines.indexOf('T1') + 1, lines.indexOf('G10') + 1, lines.length - 5]) {
      if (cut <= 0) continue;
      const first = new ExtrusionTracker();
      for (const l of lines.slice(0, cut)) first.update(l);
      const resumed = ExtrusionTracker.restore(JSON.parse(JSON.stringify(first.snapshot())));
      for (const l of lines.slice(cut)) resumed.update(l);
      assert.deepEqual(resumed.report(spools(fx)), whole.report(spools(fx)), `${fx.name}, cut at line ${cut}`);
      assert.deepEqual(resumed.snapshot(), whole.snapshot());
    }
  }
});

test('one tool, flow 100 %, no firmware retraction: the motion tracker (on send) and the extrusion tracker agree on net E', () => {
  for (const fx of [prusaSlicerJob(), curaJob()]) {
    const motion = new MotionTracker();
    const lines = wireLines(fx.text);
    for (const l of lines) motion.update(l);
    assert.ok(Math.abs(motion.totalExtruded - run(fx).netMm(0)) < 1e-6, fx.name);
  }
});
