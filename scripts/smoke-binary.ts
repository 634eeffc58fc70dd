// `npm run smoke:binary [-- --arch x64|arm64] [--runs N]`: runs dist/printfarm-linux-<arch> from an empty dir without Node and prints size and start-up time.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { doctorBinary, smokeBinary } from './binary/smoke.js';
import { ARCHES, DIST_DIR, binaryName, type Arch } from './binary/targets.js';

async function cli(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { arch: { type: 'string', default: 'x64' }, runs: { type: 'string', default: '1' } } });
  const arch = values.arch as Arch;
  if (!ARCHES.includes(arch)) {
    console.error(`smoke-binary: unknown --arch "${values.arch}" (expected x64 or arm64)`);
    return 2;
  }
  const binary = path.join(DIST_DIR, binaryName(arch));
  if (!existsSync(binary)) {
    console.error(`smoke-binary: ${binary} is missing; run npm run build:binary -- --arch ${arch}`);
    return 2;
  }
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 50) {
    console.error(`smoke-binary: --runs "${values.runs}" must be a whole number from 1 to 50`);
    return 2;
  }
  const r = await smokeBinary(binary, arch);
  // Further first starts only for the timing: one sample on a busy machine says little.
  const startups = [r.startupMs];
  for (let i = 1; i < runs; i++) startups.push((await smokeBinary(binary, arch)).startupMs);
  const doctor = await doctorBinary(binary, arch);
  const checks: [string, boolean, string][] = [
    ['no node on PATH', !r.nodeOnPath, r.nodeOnPath ? 'node was found' : 'command -v node fails'],
    ['GET /healthz', r.healthzStatus === 200, `${r.healthzStatus} ${r.healthzBody.slice(0, 120)}`],
    ['initial admin key written', r.keyFound, 'data/initial-admin-key.txt'],
    ['GET /v1/auth/test with key', r.authWithKeyStatus === 200, String(r.authWithKeyStatus)],
    ['GET /v1/auth/test without key', r.authWithoutKeyStatus === 401, String(r.authWithoutKeyStatus)],
    ['a job printed, sessions in a worker', r.jobStatus === 'completed', r.jobStatus],
    ['clean exit on SIGTERM', r.exitCode === 0, `exit status ${r.exitCode}`],
    ['printfarm doctor', doctor.exitCode === 0, `exit status ${doctor.exitCode}`],
  ];
  for (const [name, passed, detail] of checks) console.log(`${passed ? 'PASS' : 'FAIL'} ${name.padEnd(30)} ${detail}`);
  console.log(doctor.output.trimEnd().replace(/^/gm, '  doctor: '));
  const sorted = [...startups].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)] as number;
  const timing = runs === 1 ? `${median.toFixed(0)} ms` : `median ${median.toFixed(0)} ms, min ${(sorted[0] as number).toFixed(0)} ms over ${runs} first starts`;
  console.log(
    `size ${(r.sizeBytes / 1024 / 1024).toFixed(1)} MiB (${r.sizeBytes} bytes); start-up to first /healthz answer ${timing}${arch === 'arm64' ? ' under qemu-user emulation' : ''}`,
  );
  const failed = checks.filter(([, passed]) => !passed).length;
  if (failed > 0) console.log(`--- binary output ---\n${r.output}`);
  return failed === 0 ? 0 : 1;
}

cli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`smoke-binary: ${(err as Error).message}`);
    process.exitCode = 1;
  },
);
