// The single executable: built when stale, copied alone into an empty dir, started without Node on the PATH, answering /healthz and /v1/auth/test.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ARM64_SYSROOT, QEMU_AARCH64, doctorBinary, smokeBinary } from '../../scripts/binary/smoke.js';
import { DIST_DIR, REPO_ROOT, binaryName, type Arch } from '../../scripts/binary/targets.js';

/** Everything whose change can change the binary. */
const INPUTS = ['src', 'web', 'firmware-profiles', 'scripts/build-binary.ts', 'scripts/binary', 'package.json', 'package-lock.json'];

function newestMtime(rel: string): number {
  const abs = path.join(REPO_ROOT, rel);
  if (!existsSync(abs)) return 0;
  const st = statSync(abs);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(abs)) newest = Math.max(newest, newestMtime(path.join(rel, entry)));
  return newest;
}

/** Builds through the same script as `npm run build:binary` unless the binary is newer than all its inputs. */
async function ensureBuilt(arch: Arch): Promise<string> {
  const binary = path.join(DIST_DIR, binaryName(arch));
  const inputsChanged = Math.max(...INPUTS.map(newestMtime));
  if (existsSync(binary) && statSync(binary).mtimeMs > inputsChanged) return binary;
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/build-binary.ts', '--arch', arch], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (b: Buffer) => output.push(b.toString()));
    child.stderr.on('data', (b: Buffer) => output.push(b.toString()));
    child.once('error', reject);
    child.once('exit', resolve);
  });
  assert.equal(code, 0, `build-binary --arch ${arch} failed:\n${output.join('')}`);
  return binary;
}

async function assertServes(arch: Arch): Promise<void> {
  const binary = await ensureBuilt(arch);
  const r = await smokeBinary(binary, arch);
  const context = `binary output:\n${r.output}`;
  assert.equal(r.nodeOnPath, false, 'the smoke environment must not reach a node executable');
  assert.equal(r.healthzStatus, 200, context);
  assert.equal(r.keyFound, true, `data/initial-admin-key.txt was not written; ${context}`);
  assert.equal(r.authWithKeyStatus, 200, `/v1/auth/test with the initial key; ${context}`);
  assert.equal(r.authWithoutKeyStatus, 401, `/v1/auth/test without a key; ${context}`);
  assert.equal(r.docsStatus, 200, `/docs, the API reference page; ${context}`);
  assert.equal(r.docsScriptStatus, 200, `the renderer script /docs loads; ${context}`);
  assert.equal(r.jobStatus, 'completed', `a job on a sim:// printer with --workers 1; ${context}`);
  assert.equal(r.exitCode, 0, `exit status after SIGTERM; ${context}`);

  const doctor = await doctorBinary(binary, arch);
  for (const check of ['sqlite', 'serial-addon', 'firmware-profiles', 'dashboard']) {
    assert.match(doctor.output, new RegExp(`^OK +${check} `, 'm'), `doctor check ${check}:\n${doctor.output}`);
  }
  assert.match(doctor.output, new RegExp(`^OK +runtime .* linux-${arch} \\(single binary\\)`, 'm'), doctor.output);
  assert.equal(doctor.exitCode, 0, doctor.output);
}

// The first build compiles better-sqlite3 (a few minutes on 2 cores); later ones reuse .build/ and take seconds.
test('x64 binary runs alone in an empty dir without Node and serves /healthz, /v1/auth/test and /docs', { timeout: 20 * 60_000 }, async () => {
  await assertServes('x64');
});

// Runs wherever the cross tools are installed (.ci/run installs them); PRINTFARM_TEST_ARM64=1 demands it, =0 skips it.
const ARM64_TOOLS = [QEMU_AARCH64, path.join(ARM64_SYSROOT, 'lib', 'ld-linux-aarch64.so.1'), '/usr/bin/aarch64-linux-gnu-g++'];
const arm64Setting = process.env.PRINTFARM_TEST_ARM64;
const arm64Tools = ARM64_TOOLS.every((p) => existsSync(p));
const arm64Skip =
  arm64Setting === '0'
    ? 'PRINTFARM_TEST_ARM64=0'
    : arm64Setting !== '1' && !arm64Tools
      ? 'arm64 cross tools missing (apt-get install g++-aarch64-linux-gnu qemu-user-static libc6-arm64-cross, or run .ci/run)'
      : false;
test('arm64 binary serves /healthz and /v1/auth/test under qemu-user', { timeout: 30 * 60_000, skip: arm64Skip }, async () => {
  for (const needed of ARM64_TOOLS) {
    assert.ok(existsSync(needed), `${needed} is missing: apt-get install g++-aarch64-linux-gnu qemu-user-static libc6-arm64-cross`);
  }
  await assertServes('arm64');
});
