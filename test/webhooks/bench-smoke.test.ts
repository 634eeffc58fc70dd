// `bench-webhooks --json --quick` runs end to end; its last line is one JSON object of the documented shape (no thresholds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';

test('bench-webhooks --json --quick ends with one JSON object with every documented field', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('scripts/bench-webhooks.ts'), '--json', '--quick'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(killer);
  assert.equal(code, 0, stderr);
  const lines = stdout.trim().split('\n');
  assert.match(lines[0] as string, /deliveries/, 'a human table first');
  const j = JSON.parse(lines.at(-1) as string) as { throughput: Array<Record<string, number>>; isolation: Record<string, number> };
  assert.deepEqual(j.throughput.map((r) => r.webhooks), [1, 4]);
  for (const r of j.throughput) for (const k of ['deliveries', 'seconds', 'per_s']) assert.equal(typeof r[k], 'number', k);
  assert.deepEqual(Object.keys(j.isolation).sort(), [
    'added_p50_ms',
    'added_p99_ms',
    'alone_p50_ms',
    'alone_p99_ms',
    'beside_fast_p50_ms',
    'beside_fast_p99_ms',
    'beside_hanging_p50_ms',
    'beside_hanging_p99_ms',
    'events',
    'hanging_attempts',
  ]);
  assert.equal(j.isolation.hanging_attempts, 8, 'each hanging webhook held exactly one attempt');
});
