// `npm run bench:pi [-- --json] [--quick] [--baseline-ref REF] [--cpu-prof DIR]`: bench-stream scenario d with the host process held to
// 25 % of one core on one CPU (a Raspberry Pi 4 core, roughly), the simulated printers outside the limit.
// The limit is a cgroup: v2 `cpu.max` + `cpuset.cpus`, or v1 `cpu.cfs_quota_us` + `cpuset.cpus`. It needs root and a
// writable cgroup filesystem; without them it says why and exits 0. JSON (--json), one line:
// { limited: true, cgroup: 'v1'|'v2', quota_pct, cpu, scale: <bench-stream's scale object>, targets, pass }
// or { limited: false, reason }.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const argv = process.argv.slice(2);
const JSON_OUT = argv.includes('--json');
const passThrough: string[] = [];
/** Node flags of the limited host (a CPU profile of it under the limit: where the time goes on a small host). */
const nodeFlags: string[] = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]!;
  if (a === '--json') continue;
  if (a === '--quick') passThrough.push(a);
  else if (a === '--baseline-ref' && argv[i + 1] !== undefined) passThrough.push(a, argv[++i]!);
  else if (a === '--cpu-prof' && argv[i + 1] !== undefined) nodeFlags.push('--cpu-prof', `--cpu-prof-dir=${argv[++i]!}`);
  else {
    process.stderr.write(`bench-pi: unknown argument ${a} (known: --json, --quick, --baseline-ref REF, --cpu-prof DIR)\n`);
    process.exit(2);
  }
}

const QUOTA_PCT = 25;
const PERIOD_US = 100_000;
const TARGETS = { lines_per_s_each_min: 294, loop_p99_ms_max: 50 };
const ROOT = '/sys/fs/cgroup';
const progress = (msg: string): void => void process.stderr.write(`[bench-pi] ${msg}\n`);

/** One controller directory of the limit: where it was made, and where the simulators go (outside the limit). */
interface Group {
  dir: string;
  /** Outside the limit: a sibling group with a high weight and no quota (cpu), or our own group (cpuset). */
  home: string;
  /** Made by us (removed at the end) beside `dir`. */
  ownHome: boolean;
  /** The cpu.stat of the limited group (cpu controller only). */
  stat?: string;
}

interface Limit {
  version: 'v1' | 'v2';
  cpu: number;
  groups: Group[];
}

/**
 * Weight of both groups against everything else on the machine (a shared build host): the host should get its 25 %
 * and the simulators what they need, as on an appliance where nothing else runs. The quota still caps the host.
 */
const V1_SHARES = 16384;
const V2_WEIGHT = 10000;

/** Our own cgroup path per hierarchy, from /proc/self/cgroup (`0::/x` for v2, `N:cpu,cpuacct:/x` for v1). */
function ownPaths(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n')) {
    const [, controllers, p] = line.split(':');
    for (const c of (controllers ?? '').split(',')) out.set(c, p ?? '/');
  }
  return out;
}

/** The last CPU of a cpuset list such as `0-3,6`: the host is pinned there. */
function lastCpu(list: string): number {
  const last = list.trim().split(',').pop()!;
  return Number(last.split('-').pop());
}

/** Makes the limit, or returns why it cannot. */
function makeLimit(): Limit | string {
  if (process.getuid?.() !== 0) return 'not root: a cgroup CPU quota needs root (run it as root, e.g. in the appliance container)';
  if (!existsSync(ROOT)) return `no cgroup filesystem at ${ROOT}`;
  const own = ownPaths();
  const name = `printfarm-bench-pi-${process.pid}`;
  const quota = Math.round((PERIOD_US * QUOTA_PCT) / 100);
  try {
    if (existsSync(path.join(ROOT, 'cgroup.controllers')) && own.has('')) {
      // v2, unified: one group with both controllers, under our own group's parent tree root.
      const controllers = readFileSync(path.join(ROOT, 'cgroup.controllers'), 'utf8');
      if (!/\bcpu\b/.test(controllers) || !/\bcpuset\b/.test(controllers)) return `cgroup v2 at ${ROOT} offers no cpu/cpuset controller`;
      writeFileSync(path.join(ROOT, 'cgroup.subtree_control'), '+cpu +cpuset');
      const dir = path.join(ROOT, name);
      mkdirSync(dir);
      const cpu = lastCpu(readFileSync(path.join(ROOT, 'cpuset.cpus.effective'), 'utf8'));
      writeFileSync(path.join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`);
      writeFileSync(path.join(dir, 'cpu.weight'), String(V2_WEIGHT));
      writeFileSync(path.join(dir, 'cpuset.cpus'), String(cpu));
      const home = `${dir}-sims`;
      mkdirSync(home);
      writeFileSync(path.join(home, 'cpu.weight'), String(V2_WEIGHT));
      return { version: 'v2', cpu, groups: [{ dir, home, ownHome: true, stat: 'cpu.stat' }] };
    }
    const cpuRoot = path.join(ROOT, 'cpu');
    const setRoot = path.join(ROOT, 'cpuset');
    if (!existsSync(path.join(cpuRoot, 'cpu.cfs_quota_us')) || !existsSync(path.join(setRoot, 'cpuset.cpus'))) {
      return `no usable cgroup: neither v2 (${ROOT}/cgroup.controllers) nor v1 cpu and cpuset hierarchies are mounted`;
    }
    const cpuHome = path.join(cpuRoot, own.get('cpu') ?? own.get('cpu,cpuacct') ?? '/');
    const setHome = path.join(setRoot, own.get('cpuset') ?? '/');
    const cpuDir = path.join(cpuHome, name);
    const setDir = path.join(setHome, name);
    mkdirSync(cpuDir);
    writeFileSync(path.join(cpuDir, 'cpu.cfs_period_us'), String(PERIOD_US));
    writeFileSync(path.join(cpuDir, 'cpu.cfs_quota_us'), String(quota));
    writeFileSync(path.join(cpuDir, 'cpu.shares'), String(V1_SHARES));
    const simDir = `${cpuDir}-sims`;
    mkdirSync(simDir);
    writeFileSync(path.join(simDir, 'cpu.shares'), String(V1_SHARES));
    mkdirSync(setDir);
    const cpu = lastCpu(readFileSync(path.join(setHome, 'cpuset.effective_cpus'), 'utf8'));
    writeFileSync(path.join(setDir, 'cpuset.cpus'), String(cpu));
    writeFileSync(path.join(setDir, 'cpuset.mems'), readFileSync(path.join(setHome, 'cpuset.effective_mems'), 'utf8').trim());
    return {
      version: 'v1',
      cpu,
      groups: [
        { dir: cpuDir, home: simDir, ownHome: true, stat: 'cpu.stat' },
        { dir: setDir, home: setHome, ownHome: false },
      ],
    };
  } catch (err) {
    return `cannot set up a cgroup under ${ROOT}: ${(err as Error).message}`;
  }
}

/** How often the quota stopped the host: `nr_periods`, `nr_throttled` and the throttled time, from cpu.stat. */
function throttling(limit: Limit): { periods: number; throttled: number; throttled_ms: number } | null {
  const g = limit.groups.find((x) => x.stat);
  if (!g) return null;
  const fields = new Map(
    readFileSync(path.join(g.dir, g.stat!), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ') as [string, string]),
  );
  const ms = fields.has('throttled_usec') ? Number(fields.get('throttled_usec')) / 1000 : Number(fields.get('throttled_time') ?? 0) / 1e6;
  return { periods: Number(fields.get('nr_periods') ?? 0), throttled: Number(fields.get('nr_throttled') ?? 0), throttled_ms: Math.round(ms) };
}

function removeLimit(limit: Limit): void {
  for (const g of limit.groups) {
    for (const dir of g.ownHome ? [g.dir, g.home] : [g.dir]) {
      try {
        rmdirSync(dir);
      } catch (err) {
        progress(`could not remove ${dir}: ${(err as Error).message}`);
      }
    }
  }
}

/** Pids of every process below `root` (by parent pid, from /proc). */
function descendants(root: number): Array<{ pid: number; cmdline: string }> {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: Array<{ pid: number; cmdline: string }> = [];
  for (const [pid] of parent) {
    let p: number | undefined = pid;
    while (p !== undefined && p > 1 && p !== root) p = parent.get(p);
    if (p !== root || pid === root) continue;
    try {
      out.push({ pid, cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ') });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function main(): Promise<void> {
  const limit = makeLimit();
  if (typeof limit === 'string') {
    console.log(`bench-pi: not run: ${limit}`);
    if (JSON_OUT) console.log(JSON.stringify({ limited: false, reason: limit }));
    return;
  }
  progress(`cgroup ${limit.version}: ${limit.groups.map((g) => g.dir).join(', ')}: ${QUOTA_PCT} % of CPU ${limit.cpu}`);
  let result: { scale: Record<string, unknown> | null };
  let throttled: ReturnType<typeof throttling> = null;
  try {
    // The shell joins the limit, then becomes the bench: everything the bench starts is born inside it...
    const join = limit.groups.map((g) => `echo $$ > '${g.dir}/cgroup.procs'`).join(' && ');
    const bench = [...nodeFlags, '--import', 'tsx', 'scripts/bench-stream.ts', '--only', 'd', '--json', ...passThrough];
    const child = spawn('sh', ['-c', `${join} && exec "$0" "$@"`, process.execPath, ...bench], { stdio: ['ignore', 'pipe', 'inherit'] });
    // ...except the simulated printers: the printers are not the host, so they go back to our own groups.
    const moved = new Set<number>();
    const watcher = setInterval(() => {
      for (const d of descendants(child.pid!)) {
        if (moved.has(d.pid) || !/\bsimulate\b.*--tcp/.test(d.cmdline)) continue;
        moved.add(d.pid);
        for (const g of limit.groups) {
          try {
            writeFileSync(path.join(g.home, 'cgroup.procs'), String(d.pid));
          } catch (err) {
            progress(`could not move simulator ${d.pid} out of the limit: ${(err as Error).message}`);
          }
        }
        progress(`simulators (pid ${d.pid}) moved outside the limit`);
      }
    }, 50);
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    clearInterval(watcher);
    if (code !== 0) throw new Error(`bench-stream exited with ${code}`);
    if (moved.size === 0) throw new Error('the simulators were never seen: they ran inside the limit, the figures would be wrong');
    result = JSON.parse(out.trim().split('\n').pop() ?? '{}') as typeof result;
    throttled = throttling(limit);
  } finally {
    removeLimit(limit);
  }
  const sc = result.scale as { printers: number; lines_per_s_each: number; loop_p99_ms: number; cpu_us_per_line: number; baseline: { cpu_us_per_line: number; lines_per_s_each: number; loop_p99_ms: number; ref: string } | null };
  const pass = sc.lines_per_s_each >= TARGETS.lines_per_s_each_min && sc.loop_p99_ms <= TARGETS.loop_p99_ms_max;
  const rows: string[][] = [['measure', 'result', 'target', 'how']];
  const how = `${sc.printers} printers, host at ${QUOTA_PCT} % of CPU ${limit.cpu} (cgroup ${limit.version}), simulators outside`;
  rows.push(['lines/s each', String(sc.lines_per_s_each), `>= ${TARGETS.lines_per_s_each_min} of 300`, how]);
  rows.push(['loop p99', `${sc.loop_p99_ms} ms`, `<= ${TARGETS.loop_p99_ms_max} ms`, 'monitorEventLoopDelay']);
  rows.push(['cpu per line', `${sc.cpu_us_per_line} us`, '-', 'host CPU / lines acknowledged']);
  if (throttled) {
    rows.push([
      'quota hit',
      `${throttled.throttled} of ${throttled.periods} periods, ${throttled.throttled_ms} ms held`,
      '-',
      `cgroup cpu.stat over the whole run${sc.baseline ? ' (baseline included)' : ''}`,
    ]);
  }
  if (sc.baseline) {
    rows.push([
      `baseline ${sc.baseline.ref}`,
      `${sc.baseline.lines_per_s_each} lines/s each, loop p99 ${sc.baseline.loop_p99_ms} ms, ${sc.baseline.cpu_us_per_line} us/line`,
      '-',
      'the same limit, the code of that commit',
    ]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const fmt = (r: string[]): string => r.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd();
  console.log(fmt(rows[0]!));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows.slice(1)) console.log(fmt(r));
  if (JSON_OUT) {
    console.log(JSON.stringify({ limited: true, cgroup: limit.version, quota_pct: QUOTA_PCT, cpu: limit.cpu, scale: result.scale, throttling: throttled, targets: TARGETS, pass }));
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`bench-pi failed: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
