// The progress view's rules as tables: phase and heating label, percent and lines, ETA from the slicer or the rate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, formatProgress, progressView, type ProgressInput } from '../../src/printers/session-progress.js';

const job = (over: Partial<NonNullable<ProgressInput['job']>> = {}): NonNullable<ProgressInput['job']> => ({
  progress: 0,
  lines_acked: 0,
  lines_total: 1000,
  elapsed_ms: 0,
  phase: 'streaming',
  ...over,
});

test('phase and label: connecting, heating with its temperatures, printing, paused, error', () => {
  const rows: Array<{ name: string; input: ProgressInput; phase: string; label: string }> = [
    { name: 'no job yet', input: { status: 'connecting', job: null, temperatures: {} }, phase: 'connecting', label: 'connecting' },
    {
      name: 'hotend heating (M109 blocks the stream)',
      input: { status: 'printing', job: job({ lines_acked: 3 }), temperatures: { hotend: 143.4, hotend_target: 215, bed: 60, bed_target: 60 } },
      phase: 'heating',
      label: 'heating: 143/215 °C',
    },
    {
      name: 'bed heating',
      input: { status: 'printing', job: job(), temperatures: { hotend: 25, hotend_target: 0, bed: 40, bed_target: 60 } },
      phase: 'heating',
      label: 'heating: bed 40/60 °C',
    },
    {
      name: 'both heating',
      input: { status: 'printing', job: job(), temperatures: { hotend: 100, hotend_target: 215, bed: 40, bed_target: 60 } },
      phase: 'heating',
      label: 'heating: hotend 100/215 °C, bed 40/60 °C',
    },
    {
      name: 'a few degrees under target while printing is still printing',
      input: { status: 'printing', job: job({ progress: 40 }), temperatures: { hotend: 212, hotend_target: 215 } },
      phase: 'printing',
      label: 'printing',
    },
    { name: 'paused', input: { status: 'paused', job: job({ phase: 'paused' }), temperatures: {} }, phase: 'paused', label: 'paused' },
    { name: 'error', input: { status: 'error', job: null, temperatures: {} }, phase: 'error', label: 'error' },
    {
      name: 'ended',
      input: { status: 'idle', job: job({ phase: 'finishing', progress: 100 }), temperatures: {}, outcome: 'completed' },
      phase: 'completed',
      label: 'completed',
    },
  ];
  for (const r of rows) {
    const v = progressView(r.input);
    assert.equal(v.phase, r.phase, r.name);
    assert.equal(v.label, r.label, r.name);
  }
});

test('ETA: the slicer estimate scaled by what is left, else the measured rate once it means something', () => {
  const rows: Array<{ name: string; input: ProgressInput; eta: number | null; source: string | null }> = [
    { name: 'slicer, start', input: { status: 'printing', job: job(), temperatures: {}, estimatedSeconds: 3600 }, eta: 3600, source: 'slicer' },
    {
      name: 'slicer, 25 % done',
      input: { status: 'printing', job: job({ progress: 25, elapsed_ms: 60_000 }), temperatures: {}, estimatedSeconds: 3600 },
      eta: 2700,
      source: 'slicer',
    },
    { name: 'rate, too early', input: { status: 'printing', job: job({ progress: 0.5, elapsed_ms: 60_000 }), temperatures: {} }, eta: null, source: null },
    { name: 'rate, too short', input: { status: 'printing', job: job({ progress: 10, elapsed_ms: 2_000 }), temperatures: {} }, eta: null, source: null },
    {
      name: 'rate, 20 % in 10 min',
      input: { status: 'printing', job: job({ progress: 20, elapsed_ms: 600_000 }), temperatures: {} },
      eta: 2400,
      source: 'rate',
    },
    { name: 'a bad estimate is ignored', input: { status: 'printing', job: job(), temperatures: {}, estimatedSeconds: -5 }, eta: null, source: null },
    { name: 'done', input: { status: 'printing', job: job({ progress: 100, elapsed_ms: 600_000 }), temperatures: {} }, eta: 0, source: 'rate' },
  ];
  for (const r of rows) {
    const v = progressView(r.input);
    assert.equal(v.etaSeconds, r.eta, r.name);
    assert.equal(v.etaSource, r.source, r.name);
  }
});

test('formatting: durations, the bar on a terminal, plain words in a log', () => {
  const durations: Array<[number, string]> = [
    [0, '0s'],
    [45, '45s'],
    [723, '12m 03s'],
    [3720, '1h 02m'],
  ];
  for (const [s, text] of durations) assert.equal(formatDuration(s), text);
  const v = progressView({
    status: 'printing',
    job: job({ progress: 50, lines_acked: 500, elapsed_ms: 60_000 }),
    temperatures: {},
    estimatedSeconds: 1446,
  });
  assert.equal(formatProgress(v, { tty: true, barWidth: 10 }), '[#####.....] printing  50.0%  500/1000 lines  ETA 12m 03s (slicer)');
  assert.equal(formatProgress(v, { tty: false }), 'progress printing  50.0%  500/1000 lines  ETA 12m 03s (slicer)');
  const heat = progressView({ status: 'printing', job: job({ lines_total: null }), temperatures: { hotend: 143, hotend_target: 215 } });
  assert.equal(formatProgress(heat, { tty: false }), 'progress heating: 143/215 °C  0.0%  0 lines  ETA --');
});
