// `bench-stream --json --quick` runs end to end, prints one JSON object of the documented shape, and meets its untimed thresholds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';

const SCRIPT = path.resolve('scripts/bench-stream.ts');

function runBench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 55_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

const isNum = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

test('bench:stream --json --quick prints one JSON object with every documented field, numbers where numbers belong', async () => {
  const r = await runBench(['--json', '--quick']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `stdout must hold only the JSON: ${r.stdout}`);
  const j = JSON.parse(lines[0]!) as Record<string, unknown>;
  assert.deepEqual(Object.keys(j).sort(), ['integrity', 'link', 'meatpack', 'memory', 'pingpong', 'scale', 'starvation_ms']);

  const link = j.link as Array<Record<string, unknown>>;
  assert.deepEqual(link.map((l) => l.baud), [115200, 250000]);
  for (const l of link) assert.deepEqual(Object.keys(l).sort(), ['baud', 'ratio']), assert.ok(isNum(l.ratio));

  const pp = j.pingpong as Array<Record<string, unknown>>;
  assert.deepEqual(pp.map((p) => p.latency_ms), [1, 16]);
  for (const p of pp) assert.deepEqual(Object.keys(p).sort(), ['latency_ms', 'speedup']), assert.ok(isNum(p.speedup));

  assert.ok(isNum(j.starvation_ms));

  const scale = j.scale as Record<string, unknown>;
  assert.deepEqual(Object.keys(scale).sort(), [
    'baseline',
    'cpu_pct_per_printer',
    'cpu_ratio_to_baseline',
    'cpu_us_per_line',
    'cpu_us_per_line_sys',
    'cpu_us_per_line_user',
    'lines_per_s_each',
    'loop_p99_ms',
    'printers',
    'rss_mb',
    'sim_cpu_pct_per_printer',
  ]);
  // Without --baseline-ref no other commit ran: its figures are null, every measured one a number.
  const { baseline, cpu_ratio_to_baseline, ...measured } = scale;
  assert.equal(baseline, null);
  assert.equal(cpu_ratio_to_baseline, null);
  for (const v of Object.values(measured)) assert.ok(isNum(v));

  const memory = j.memory as Record<string, unknown>;
  assert.deepEqual(Object.keys(memory).sort(), ['file_mb', 'rss_growth_mb']);
  for (const v of Object.values(memory)) assert.ok(isNum(v));

  const integrity = j.integrity as Array<Record<string, unknown>>;
  assert.deepEqual(integrity.map((i) => i.error_rate), [1e-4, 1e-3]);
  for (const i of integrity) {
    assert.deepEqual(Object.keys(i).sort(), ['checksum_invisible', 'error_rate', 'exact', 'lines', 'resend_ratio']);
    assert.equal(typeof i.exact, 'boolean');
    assert.ok(isNum(i.lines) && isNum(i.resend_ratio) && isNum(i.checksum_invisible));
  }

  const meatpack = j.meatpack as Record<string, unknown>;
  assert.deepEqual(Object.keys(meatpack).sort(), ['exact', 'ratio']);
  assert.ok(isNum(meatpack.ratio));
  assert.equal(typeof meatpack.exact, 'boolean');
});

test('bench:stream --quick meets its thresholds that do not depend on timing: exact integrity, flat memory', async () => {
  const r = await runBench(['--json', '--quick', '--only', 'e,f']);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout.trim()) as {
    memory: { file_mb: number; rss_growth_mb: number };
    integrity: Array<{ error_rate: number; lines: number; exact: boolean; checksum_invisible: number }>;
  };
  // Corrupted bytes on the wire must never change what the printer executed: every line exactly once, in order.
  for (const i of j.integrity) {
    assert.equal(i.exact, true, `the executed record differs from the file at error rate ${i.error_rate}`);
    assert.equal(i.checksum_invisible, 0, `a corruption slipped past the checksum at error rate ${i.error_rate}`);
    assert.ok(i.lines > 0);
  }
  // The file is streamed, never loaded whole: resident memory grows far less than the file's size.
  assert.ok(j.memory.file_mb >= 10, `the quick file is ${j.memory.file_mb} MB`);
  assert.ok(j.memory.rss_growth_mb < j.memory.file_mb / 2, `rss grew ${j.memory.rss_growth_mb} MB streaming a ${j.memory.file_mb} MB file`);
});

test('bench:stream --quick --only g checks the MeatPack figure against everything the printer ran: exact', async () => {
  const r = await runBench(['--json', '--quick', '--only', 'g']);
  assert.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout.trim()) as { meatpack: { ratio: number; exact: boolean } };
  // Some 680 lines a run: more than the simulator keeps unless asked for its full record.
  assert.equal(j.meatpack.exact, true, r.stderr);
});

test('bench:stream refuses an unknown flag with exit 2', async () => {
  const r = await runBench(['--frobnicate']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown flag --frobnicate/);
});
