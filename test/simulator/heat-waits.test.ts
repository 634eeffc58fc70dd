// The virtual Marlin's heat-up waits: M108 through the emergency parser, the switch that turns it off, residency time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { frame, harness } from './sim-harness.js';

/** A printer past M110 that got `M190 S60` and a move queued behind it, 2 s into the heat-up. */
function heatingBed(params: Record<string, string>) {
  const h = harness({ baud: '0', ...params });
  h.write('N0 M110 N0*125\n');
  h.advance(1);
  h.take();
  h.write(frame(1, 'M190 S60') + frame(2, 'G1 X5 F6000'));
  h.advance(2000);
  assert.deepEqual(h.take().filter((l) => l.startsWith('ok')), [], 'the bed is cold: M190 still waits');
  return h;
}

test('M108 read by the emergency parser ends a running M190 at once; the target stays; its own ok comes after', () => {
  const h = heatingBed({});
  h.write(frame(3, 'M108'));
  h.advance(5);
  assert.deepEqual(h.take().filter((l) => l.startsWith('ok')), ['ok', 'ok', 'ok'], 'M190, then the move, then M108');
  assert.deepEqual(h.printer.executed, ['M110 N0', 'M190 S60', 'G1 X5 F6000', 'M108']);
  const t = h.printer.temperatures();
  assert.equal(t.bedTarget, 60);
  assert.ok(t.bed < 40, `the wait ended long before the bed got warm (${t.bed.toFixed(1)} °C)`);
  h.close();
});

test('with emergency_parser=0, M108 waits in the queue behind M190 like any line: the heat-up runs to its end', () => {
  const h = heatingBed({ emergency_parser: '0' });
  h.write(frame(3, 'M108'));
  h.advance(5000);
  assert.deepEqual(h.take().filter((l) => l.startsWith('ok')), [], 'M108 does nothing while M190 waits');
  h.waitFor(/^ok$/, 600_000);
  assert.ok(h.printer.temperatures().bed >= 59, 'M190 answered only at its target');
  h.advance(100);
  assert.deepEqual(h.printer.executedJobLines(), ['M190 S60', 'G1 X5 F6000', 'M108']);
  h.close();
});

test('M108 does not end a dwell (G4) and does nothing when no heat-up waits', () => {
  const h = harness({ baud: '0' });
  h.write('N0 M110 N0*125\n');
  h.advance(1);
  h.take();
  h.write(frame(1, 'G4 S5') + frame(2, 'M108'));
  h.advance(4000);
  assert.deepEqual(h.take().filter((l) => l.startsWith('ok')), [], 'the dwell runs its 5 s');
  h.advance(1100);
  assert.deepEqual(h.take().filter((l) => l.startsWith('ok')), ['ok', 'ok']);
  // A stale M108 must not cut the next heat-up short.
  h.write(frame(3, 'M109 S200'));
  h.advance(3000);
  assert.deepEqual(h.take().filter((l) => l.startsWith('ok')), []);
  h.close();
});

test('residency_s: M109 at a temperature already reached still waits that long, like Marlin TEMP_RESIDENCY_TIME', () => {
  for (const [residency, okBy] of [['0', 5], ['10', 10_050]] as const) {
    const h = harness({ baud: '0', residency_s: residency });
    h.write('N0 M110 N0*125\n');
    h.advance(1);
    h.take();
    // 25 °C is the ambient the heater sits at: within the window from the start.
    h.write(frame(1, 'M109 S25'));
    if (residency === '10') {
      h.advance(9_900);
      assert.deepEqual(h.take().filter((l) => l.startsWith('ok')), [], 'still in residency after 9.9 s');
      h.advance(okBy - 9_900);
    } else h.advance(okBy);
    assert.deepEqual(h.take().filter((l) => l.startsWith('ok')), ['ok'], `residency ${residency} s`);
    h.close();
  }
});
