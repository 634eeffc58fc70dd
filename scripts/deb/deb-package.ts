// Lays out the printfarm Debian package around one built binary (files, modes, control data, maintainer scripts) and
// builds it with dpkg-deb; the binary itself is whatever file it is given, so tests package a small stand-in.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Arch } from '../binary/targets.js';

const HERE = path.dirname(new URL(import.meta.url).pathname);
/** The manual-install unit (docs/binary-and-debian.md) is the one source; the package only moves the binary to /usr/bin. */
const UNIT_SOURCE = path.join(HERE, '..', 'printfarm.service');

/** Debian's architecture names for ours. */
export const DEB_ARCH: Record<Arch, string> = { x64: 'amd64', arm64: 'arm64' };

export const debFileName = (version: string, arch: Arch): string => `printfarm_${version}_${DEB_ARCH[arch]}.deb`;

export interface DebInput {
  /** The executable to install as /usr/bin/printfarm. */
  binary: string;
  arch: Arch;
  /** The package version (package.json's). */
  version: string;
  outDir: string;
}

/** The unit as installed by the package: the binary in /usr/bin. */
export function packagedUnit(): string {
  const unit = readFileSync(UNIT_SOURCE, 'utf8');
  if (!unit.includes('ExecStart=/usr/local/bin/printfarm ')) throw new Error(`${UNIT_SOURCE}: no ExecStart on /usr/local/bin/printfarm`);
  return unit
    .replace(/^# systemd unit .*$/m, '# systemd unit for the printfarm appliance, installed by its Debian package (see docs/binary-and-debian.md, "Installing the Debian package").')
    .replace('ExecStart=/usr/local/bin/printfarm ', 'ExecStart=/usr/bin/printfarm ');
}

export function controlFile(version: string, arch: Arch, installedKiB: number): string {
  return [
    'Package: printfarm',
    `Version: ${version}`,
    `Architecture: ${DEB_ARCH[arch]}`,
    'Maintainer: printfarm maintainers <printfarm@localhost>',
    `Installed-Size: ${installedKiB}`,
    // adduser for the service user; libc6 for the glibc the single executable needs (docs/binary-and-debian.md: 2.34 or newer).
    'Depends: adduser, libc6 (>= 2.34)',
    // Cameras: ustreamer turns a USB camera into the MJPEG stream the farm reads; ffmpeg is the other capture program.
    'Recommends: ustreamer, ffmpeg',
    'Section: misc',
    'Priority: optional',
    'Description: print farm appliance: USB 3D printers, job queue, REST API and dashboard',
    ' One self-hosted binary that drives USB 3D printers, runs the job queue and serves a',
    ' REST API and dashboard, installed as a hardened systemd service with its data in',
    ' /var/lib/printfarm.',
    '',
  ].join('\n');
}

function put(root: string, rel: string, content: string | { copyOf: string }, mode: number): void {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
  if (typeof content === 'string') writeFileSync(file, content);
  else copyFileSync(content.copyOf, file);
  chmodSync(file, mode);
}

/** Builds the .deb into outDir; returns its path. Needs dpkg-deb (Debian's dpkg package). */
export function buildDeb(input: DebInput): string {
  const probe = spawnSync('dpkg-deb', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) throw new Error('dpkg-deb is missing: install Debian\'s dpkg package');
  const root = mkdtempSync(path.join(tmpdir(), 'printfarm-deb-'));
  try {
    // The staging tree's own directories: 0755 whatever the umask.
    chmodSync(root, 0o755);
    put(root, 'usr/bin/printfarm', { copyOf: input.binary }, 0o755);
    put(root, 'lib/systemd/system/printfarm.service', packagedUnit(), 0o644);
    put(root, 'etc/default/printfarm', readFileSync(path.join(HERE, 'printfarm.default'), 'utf8'), 0o644);
    const kib = Math.ceil((statSync(input.binary).size + 8192) / 1024);
    put(root, 'DEBIAN/control', controlFile(input.version, input.arch, kib), 0o644);
    put(root, 'DEBIAN/conffiles', '/etc/default/printfarm\n', 0o644);
    for (const script of ['postinst', 'prerm', 'postrm']) put(root, `DEBIAN/${script}`, readFileSync(path.join(HERE, script), 'utf8'), 0o755);
    mkdirSync(input.outDir, { recursive: true });
    const out = path.join(input.outDir, debFileName(input.version, input.arch));
    // --root-owner-group: every file root:root in the archive, whoever builds it; the user is made by postinst.
    const r = spawnSync('dpkg-deb', ['--build', '--root-owner-group', '-Zxz', root, out], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`dpkg-deb --build failed: ${(r.stderr || r.stdout).trim()}`);
    return out;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
