// `printfarm doctor`: checks that this install can run (SQLite addon, serial addon and ports, shipped files) and prints one line per check.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { SerialPort } from 'serialport';
import { isSingleBinary, readAsset, sourceRoot } from '../assets.js';
import { openDatabase } from '../storage/db.js';
import { listSerialPorts } from '../transport/serial-discovery.js';
import { VERSION } from '../version.js';
import { WEB_ASSETS_DIR, WEB_BUILD_HINT, WEB_DIST } from '../web/web-dist.js';
import { CliUsageError, type CliCommand } from './command.js';

type Status = 'OK' | 'WARN' | 'FAIL';
interface CheckResult {
  status: Status;
  detail: string;
}
interface Check {
  name: string;
  run(): Promise<CheckResult> | CheckResult;
}

const ok = (detail: string): CheckResult => ({ status: 'OK', detail });

/** Shipped files under a top-level dir: the embedded asset keys in the binary, the directory listing from source. */
function shippedFiles(dir: string): string[] {
  if (isSingleBinary()) {
    const sea = process.getBuiltinModule('node:sea') as { getAssetKeys?: () => string[] };
    return (sea.getAssetKeys?.() ?? []).filter((k) => k.startsWith(`${dir}/`)).sort();
  }
  try {
    return readdirSync(path.join(sourceRoot(), dir))
      .filter((f) => !f.startsWith('.'))
      .map((f) => `${dir}/${f}`)
      .sort();
  } catch {
    return [];
  }
}

const checks: Check[] = [
  {
    name: 'runtime',
    run: () => ok(`printfarm ${VERSION} on Node ${process.version} ${process.platform}-${process.arch} (${isSingleBinary() ? 'single binary' : 'source tree'})`),
  },
  {
    name: 'sqlite',
    run: async () => {
      const handle = openDatabase(':memory:');
      try {
        const row = handle.sqlite.prepare('select sqlite_version() as v').get() as { v: string };
        return ok(`better-sqlite3 addon loaded, SQLite ${row.v}, ${handle.migrated.length} migrations applied to a scratch database`);
      } finally {
        await handle.close();
      }
    },
  },
  {
    name: 'serial-addon',
    run: async () => {
      // Opening a path that cannot exist goes through the native open(), so only a working addon answers "no such file".
      const probe = `/dev/printfarm-doctor-probe-${process.pid}`;
      try {
        await SerialPort.binding.open({ path: probe, baudRate: 115200 });
        return { status: 'FAIL', detail: `opening ${probe} unexpectedly succeeded` };
      } catch (err) {
        const message = (err as Error).message;
        if (/no such file|ENOENT/i.test(message)) return ok('serialport addon loaded (native open() answered for a missing device)');
        return { status: 'FAIL', detail: `serialport addon did not answer as expected: ${message}` };
      }
    },
  },
  {
    name: 'serial-ports',
    run: async () => {
      try {
        const ports = await listSerialPorts();
        const names = ports.map((p) => p.by_id ?? p.path);
        return ok(ports.length === 0 ? 'no USB serial ports found (no printer plugged in?)' : `${ports.length} found: ${names.join(', ')}`);
      } catch (err) {
        return { status: 'WARN', detail: `cannot list serial ports: ${(err as Error).message}` };
      }
    },
  },
  {
    name: 'firmware-profiles',
    run: () => {
      const files = shippedFiles('firmware-profiles').filter((f) => f.endsWith('.json') && !f.endsWith('.schema.json'));
      if (files.length === 0) return { status: 'FAIL', detail: 'no firmware profiles shipped' };
      for (const file of files) {
        const bytes = readAsset(file);
        if (!bytes) return { status: 'FAIL', detail: `${file} is listed but unreadable` };
        try {
          JSON.parse(bytes.toString('utf8'));
        } catch (err) {
          return { status: 'FAIL', detail: `${file} is not valid JSON: ${(err as Error).message}` };
        }
      }
      return ok(`${files.length} readable: ${files.map((f) => path.basename(f, '.json')).join(', ')}`);
    },
  },
  {
    name: 'dashboard',
    run: () => {
      const html = readAsset(`${WEB_DIST}/index.html`);
      if (!html || !/<html/i.test(html.toString('utf8'))) {
        // From source a missing build is one command away; inside the binary it is a broken build.
        return { status: isSingleBinary() ? 'FAIL' : 'WARN', detail: `${WEB_DIST}/index.html missing or not HTML. ${WEB_BUILD_HINT}` };
      }
      const assets = shippedFiles(`${WEB_DIST}/${WEB_ASSETS_DIR}`).filter((f) => !/\.(br|gz)$/.test(f));
      return ok(`${WEB_DIST}/index.html ${html.length} bytes, ${assets.length} hashed files in ${WEB_DIST}/${WEB_ASSETS_DIR}/`);
    },
  },
];

export const doctorCommand: CliCommand = {
  name: 'doctor',
  usage: `Usage: printfarm doctor

Runs each check and prints one line: OK, WARN (works, but look at it) or FAIL.
Exit status 0 when nothing failed, 1 otherwise.`,
  async run(args) {
    if (args.length > 0) throw new CliUsageError(`unexpected argument ${args[0]} (doctor takes no flags)`);
    let failed = 0;
    for (const check of checks) {
      let result: CheckResult;
      try {
        result = await check.run();
      } catch (err) {
        result = { status: 'FAIL', detail: (err as Error).message };
      }
      if (result.status === 'FAIL') failed++;
      console.log(`${result.status.padEnd(4)} ${check.name.padEnd(17)} ${result.detail}`);
    }
    return failed === 0 ? 0 : 1;
  },
};
