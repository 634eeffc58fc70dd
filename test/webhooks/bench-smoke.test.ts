// `bench-webhooks --json --quick` runs end to end: a human table, then one JSON object of the documented shape in which
// nothing was lost and the failing receiver really failed before it recovered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';

test('bench-webhooks --json --quick: documented fields, every event delivered to all three receivers', async () => {
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
  assert.match(lines[0] as string, /burst of 200 events to 3 receivers/, 'a human table first');
  const j = JSON.parse(lines.at(-1) as string) as Record<string, any>;
  for (const k of ['events', 'delivered', 'duplicated', 'lost', 'p50_ms', 'p99_ms', 'peak_backlog']) assert.equal(typeof j[k], 'number', k);
  assert.equal(j.events, 200);
  assert.equal(j.lost, 0, 'nothing lost');
  assert.equal(j.delivered, 3 * 200);
  assert.ok(j.peak_backlog > 0 && j.peak_backlog <= 3 * 200, `peak_backlog ${j.peak_backlog}`);
  const failing = (j.per_receiver as Array<Record<string, any>>).find((r) => String(r.name).startsWith('failing'));
  assert.ok(failing && failing.requests > failing.delivered, 'the failing receiver refused some attempts before it recovered');
});
