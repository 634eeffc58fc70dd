// `npm run smoke:binary [-- --arch x64|arm64]`: runs dist/printfarm-linux-<arch> from an empty dir without Node and prints size and start-up time.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { smokeBinary } from './binary/smoke.js';
import { ARCHES, DIST_DIR, binaryName, type Arch } from './binary/targets.js';

async function cli(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { arch: { type: 'string', default: 'x64' } } });
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
  const r = await smokeBinary(binary, arch);
  const checks: [string, boolean, string][] = [
    ['no node on PATH', !r.nodeOnPath, r.nodeOnPath ? 'node was found' : 'command -v node fails'],
    ['GET /healthz', r.healthzStatus === 200, `${r.healthzStatus} ${r.healthzBody.slice(0, 120)}`],
    ['initial admin key written', r.keyFound, 'data/initial-admin-key.txt'],
    ['GET /v1/auth/test with key', r.authWithKeyStatus === 200, String(r.authWithKeyStatus)],
    ['GET /v1/auth/test without key', r.authWithoutKeyStatus === 401, String(r.authWithoutKeyStatus)],
    ['clean exit on SIGTERM', r.exitCode === 0, `exit status ${r.exitCode}`],
  ];
  for (const [name, passed, detail] of checks) console.log(`${passed ? 'PASS' : 'FAIL'} ${name.padEnd(30)} ${detail}`);
  console.log(`size ${(r.sizeBytes / 1024 / 1024).toFixed(1)} MiB (${r.sizeBytes} bytes); start-up to first /healthz answer ${r.startupMs.toFixed(0)} ms${arch === 'arm64' ? ' under qemu-user emulation' : ''}`);
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
