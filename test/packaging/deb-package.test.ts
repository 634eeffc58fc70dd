// The Debian package: built around a small stand-in binary, unpacked with dpkg-deb (files, modes, unit, conffiles,
// maintainer scripts), then installed, upgraded, removed and purged for real with dpkg in a throw-away root.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildDeb, debFileName } from '../../scripts/deb/deb-package.js';

const hasDpkgDeb = spawnSync('dpkg-deb', ['--version']).status === 0;
const sh = (cmd: string, args: string[]): { status: number | null; stdout: string; stderr: string } =>
  spawnSync(cmd, args, { encoding: 'utf8' });

/**
 * The stand-in for the single executable: `backup --to FILE --data-dir D` writes FILE naming D and the user it ran as,
 * which is what the upgrade's backup call must produce; anything else prints a version.
 */
function standInBinary(dir: string, version: string): string {
  const file = path.join(dir, `printfarm-${version}`);
  writeFileSync(
    file,
    [
      '#!/bin/sh',
      'if [ "$1" = backup ] && [ "$2" = --to ] && [ "$4" = --data-dir ]; then',
      '  [ -n "$FAIL_BACKUP" ] && exit 3',
      `  printf 'backup of %s by %s with ${version}\\n' "$5" "$(id -un)" > "$3"; exit 0`,
      'fi',
      `echo "printfarm ${version}"`,
      '',
    ].join('\n'),
  );
  chmodSync(file, 0o755);
  return file;
}

const work = mkdtempSync(path.join(tmpdir(), 'pf-deb-test-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const debs = hasDpkgDeb
  ? {
      v1: buildDeb({ binary: standInBinary(work, '0.1.0'), arch: 'x64', version: '0.1.0', outDir: path.join(work, 'out') }),
      v2: buildDeb({ binary: standInBinary(work, '0.1.1'), arch: 'x64', version: '0.1.1', outDir: path.join(work, 'out') }),
      arm: buildDeb({ binary: standInBinary(work, '0.1.0'), arch: 'arm64', version: '0.1.0', outDir: path.join(work, 'out') }),
    }
  : null;
const skipNoDpkg = hasDpkgDeb ? false : 'dpkg-deb is not installed (Debian dpkg package)';

test('the package is named printfarm_<version>_<debian arch>.deb and says so in its control file', { skip: skipNoDpkg }, () => {
  assert.equal(path.basename(debs!.v1), 'printfarm_0.1.0_amd64.deb');
  assert.equal(path.basename(debs!.arm), debFileName('0.1.0', 'arm64'));
  assert.equal(path.basename(debs!.arm), 'printfarm_0.1.0_arm64.deb');
  const fields = (deb: string): string => sh('dpkg-deb', ['-f', deb, 'Package', 'Version', 'Architecture', 'Depends']).stdout;
  assert.equal(fields(debs!.v1), 'Package: printfarm\nVersion: 0.1.0\nArchitecture: amd64\nDepends: adduser, libc6 (>= 2.34)\n');
  assert.match(fields(debs!.arm), /^Architecture: arm64$/m);
});

test('files, owners and modes: the binary in /usr/bin, the unit, the settings file; all root-owned', { skip: skipNoDpkg }, () => {
  const listing = sh('dpkg-deb', ['-c', debs!.v1]).stdout.trim().split('\n');
  const files = new Map(listing.map((l) => { const f = l.split(/\s+/); return [f.at(-1)!, `${f[0]} ${f[1]}`]; }));
  assert.equal(files.get('./usr/bin/printfarm'), '-rwxr-xr-x root/root');
  assert.equal(files.get('./lib/systemd/system/printfarm.service'), '-rw-r--r-- root/root');
  assert.equal(files.get('./etc/default/printfarm'), '-rw-r--r-- root/root');
  for (const [name, modeOwner] of files) {
    assert.match(modeOwner, / root\/root$/, name);
    if (modeOwner.startsWith('d')) assert.match(modeOwner, /^drwxr-xr-x /, name);
  }
  assert.deepEqual([...files.keys()].filter((f) => !f.endsWith('/')).sort(), ['./etc/default/printfarm', './lib/systemd/system/printfarm.service', './usr/bin/printfarm']);
  const x = path.join(work, 'x');
  assert.equal(sh('dpkg-deb', ['-x', debs!.v1, x]).status, 0);
  assert.equal(readFileSync(path.join(x, 'usr/bin/printfarm'), 'utf8'), readFileSync(path.join(work, 'printfarm-0.1.0'), 'utf8'));
  assert.match(readFileSync(path.join(x, 'etc/default/printfarm'), 'utf8'), /^#PRINTFARM_PORT=8080$/m);
});

test('the unit: hardened, restarts on failure, state in /var/lib/printfarm, serial access through dialout only', { skip: skipNoDpkg }, () => {
  const x = path.join(work, 'unit');
  sh('dpkg-deb', ['-x', debs!.v1, x]);
  const unit = readFileSync(path.join(x, 'lib/systemd/system/printfarm.service'), 'utf8');
  const directives = unit.split('\n').filter((l) => /^[A-Za-z]+=/.test(l));
  for (const want of [
    'User=printfarm',
    'ExecStart=/usr/bin/printfarm serve --data-dir /var/lib/printfarm',
    'EnvironmentFile=-/etc/default/printfarm',
    'StateDirectory=printfarm',
    'NoNewPrivileges=yes',
    'ProtectSystem=strict',
    'ProtectHome=yes',
    'PrivateTmp=yes',
    'Restart=on-failure',
    'SupplementaryGroups=dialout',
  ]) assert.ok(directives.includes(want), `${want} in the unit`);
  // Nothing broader than dialout: one group, no root, no capabilities.
  assert.deepEqual(directives.filter((d) => /^(SupplementaryGroups|Group|User)=/.test(d)), ['User=printfarm', 'Group=printfarm', 'SupplementaryGroups=dialout']);
  assert.ok(directives.includes('CapabilityBoundingSet='), 'no capabilities');
  assert.ok(!unit.includes('/usr/local/bin'), 'the packaged unit runs the packaged binary');
});

test('control data: the settings file is a conffile; maintainer scripts are executable and parse', { skip: skipNoDpkg }, () => {
  const e = path.join(work, 'control');
  assert.equal(sh('dpkg-deb', ['-e', debs!.v1, e]).status, 0);
  assert.equal(readFileSync(path.join(e, 'conffiles'), 'utf8'), '/etc/default/printfarm\n');
  for (const script of ['postinst', 'prerm', 'postrm']) {
    const file = path.join(e, script);
    assert.equal(statSync(file).mode & 0o777, 0o755, script);
    const parsed = sh('sh', ['-n', file]);
    assert.equal(parsed.status, 0, `${script}: ${parsed.stderr}`);
    assert.match(readFileSync(file, 'utf8'), /^#!\/bin\/sh\n/, script);
  }
  const postinst = readFileSync(path.join(e, 'postinst'), 'utf8');
  assert.match(postinst, /runuser -u printfarm -- \/usr\/bin\/printfarm backup --to "\$target" --data-dir "\$DATA_DIR"/);
  const postrm = readFileSync(path.join(e, 'postrm'), 'utf8');
  assert.match(postrm, /^purge\)\n[\s\S]*rm -rf \/var\/lib\/printfarm/m);
  assert.doesNotMatch(postrm.split('purge)')[0]!, /rm -rf/, 'remove keeps the data');
});

/** A throw-away root: an overlay over this machine's own root (so dpkg and adduser are real), changes kept in `upper`. */
function throwAwayRoot(): { run(script: string): { status: number | null; out: string }; path(p: string): string; close(): void } | string {
  if (process.getuid?.() !== 0) return 'needs root (mount, chroot, dpkg -i)';
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-deb-root-'));
  for (const d of ['upper', 'work', 'merged']) mkdirSync(path.join(dir, d));
  const m = path.join(dir, 'merged');
  const run = (script: string): { status: number | null; out: string } => {
    const r = spawnSync('unshare', ['--mount', '--fork', 'sh', '-ec', [
      `mount -t overlay overlay -o lowerdir=/,upperdir=${dir}/upper,workdir=${dir}/work ${m}`,
      `mount --rbind /dev ${m}/dev`,
      `mount -t proc proc ${m}/proc`,
      `mount -t tmpfs tmpfs ${m}/run`,
      `exec chroot ${m} sh -ec "$0"`,
    ].join('\n'), script], { encoding: 'utf8' });
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  };
  const probe = run('command -v dpkg adduser runuser >/dev/null');
  if (probe.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return `no overlay root here (unshare/mount/chroot refused): ${probe.out.trim().slice(0, 200)}`;
  }
  return { run, path: (p) => path.join(dir, 'upper', p), close: () => rmSync(dir, { recursive: true, force: true }) };
}

const root = hasDpkgDeb ? throwAwayRoot() : 'dpkg-deb is not installed';
const skipRoot = typeof root === 'string' ? root : false;
const systemdNote = 'systemd is not running in the throw-away root: the unit is installed, not started (postinst guards on /run/systemd/system)';

test(`install, upgrade with a backup, remove, purge, for real with dpkg in a throw-away root (${systemdNote})`, { skip: skipRoot }, () => {
  const r = root as Exclude<typeof root, string>;
  try {
    mkdirSync(r.path('debs'), { recursive: true });
    cpSync(debs!.v1, r.path('debs/v1.deb'));
    cpSync(debs!.v2, r.path('debs/v2.deb'));
    const ok = (script: string): string => {
      const res = r.run(script);
      assert.equal(res.status, 0, `${script}\n${res.out}`);
      return res.out;
    };

    // Install: the user (a system account without a login), the data directory, the files.
    ok('dpkg -i /debs/v1.deb');
    const user = ok('getent passwd printfarm').trim().split(':');
    assert.ok(Number(user[2]) < 1000, `a system uid: ${user[2]}`);
    assert.equal(user[5], '/var/lib/printfarm');
    assert.equal(user[6], '/usr/sbin/nologin');
    assert.equal(ok('stat -c "%U %G %a" /var/lib/printfarm /usr/bin/printfarm').trim(), 'printfarm printfarm 750\nroot root 755');
    assert.equal(ok('/usr/bin/printfarm').trim(), 'printfarm 0.1.0');
    assert.match(ok('id -nG printfarm'), /^printfarm$/m, 'no group beyond its own (dialout comes from the unit)');

    // Upgrade with an empty data directory: nothing to back up, fine.
    const first = ok('dpkg -i /debs/v2.deb');
    assert.match(first, /no database in \/var\/lib\/printfarm yet, nothing to back up/);

    // Upgrade over data: the new binary backs it up as the service user; data and the edited settings stay.
    ok('echo data > /var/lib/printfarm/printfarm.sqlite; chown printfarm: /var/lib/printfarm/printfarm.sqlite; echo PRINTFARM_PORT=9090 >> /etc/default/printfarm');
    const upgraded = ok('dpkg -i /debs/v1.deb && dpkg -i /debs/v2.deb');
    assert.match(upgraded, /backup before the upgrade written to \/var\/lib\/printfarm\/backups\/pre-upgrade-from-0\.1\.0-\d{8}T\d{6}Z\.printfarm-backup/);
    // Going back to 0.1.0 is an upgrade to dpkg too (backed up by 0.1.0); the one that counts is from 0.1.0 to 0.1.1.
    assert.equal(ok('cat /var/lib/printfarm/backups/pre-upgrade-from-0.1.0-*').trim(), 'backup of /var/lib/printfarm by printfarm with 0.1.1');
    assert.equal(ok('stat -c %U /var/lib/printfarm/backups/pre-upgrade-from-0.1.0-*').trim(), 'printfarm');
    assert.equal(ok('cat /var/lib/printfarm/printfarm.sqlite').trim(), 'data');
    assert.match(ok('cat /etc/default/printfarm'), /^PRINTFARM_PORT=9090$/m);

    // A failing backup stops the upgrade before the new version is configured.
    const failed = r.run('FAIL_BACKUP=1 dpkg -i /debs/v1.deb');
    assert.notEqual(failed.status, 0, failed.out);
    assert.match(failed.out, /the backup before the upgrade failed/);
    ok('PRINTFARM_SKIP_BACKUP=1 dpkg --configure -a');

    // Remove keeps the data, the settings and the user; purge removes them.
    ok('dpkg -r printfarm');
    assert.equal(ok('test ! -e /usr/bin/printfarm && cat /var/lib/printfarm/printfarm.sqlite').trim(), 'data');
    assert.match(ok('cat /etc/default/printfarm'), /PRINTFARM_PORT=9090/);
    ok('getent passwd printfarm');
    ok('dpkg -P printfarm');
    ok('test ! -e /var/lib/printfarm && test ! -e /etc/default/printfarm && ! getent passwd printfarm && ! getent group printfarm');
  } finally {
    r.close();
  }
});
