// Where the real peer programs live (built by shared/peers-kit) and why a peer test skips when one is missing.
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The peers folder: PRINTFARM_PEERS, else `<base>/peers` where `<base>` is the nearest folder above this checkout that
 * holds `.mirror` (the peers kit builds into that very place), else null.
 */
export function peersDir(): string | null {
  if (process.env.PRINTFARM_PEERS) return process.env.PRINTFARM_PEERS;
  for (let d = process.cwd(); ; d = path.dirname(d)) {
    if (existsSync(path.join(d, '.mirror'))) return path.join(d, 'peers');
    if (path.dirname(d) === d) return null;
  }
}

/** The peers kit's own scripts (run_*.sh are installed into the peers folder by its build). */
export type PeerPiece = 'marlin' | 'marlin_full' | 'klipper' | 'moonraker' | 'octoprint';

const NEEDS: Record<PeerPiece, string[]> = {
  marlin: ['marlin/marlin_linux', 'marlin/run_marlin_pty.sh'],
  marlin_full: ['marlin/marlin_linux_full', 'marlin/run_marlin_pty.sh'],
  klipper: ['klipper/src/out/klipper.elf', 'klipper/run_klipper.sh'],
  moonraker: ['moonraker/run_moonraker.sh', 'moonraker/venv/bin/python', 'klipper/src/out/klipper.elf'],
  octoprint: ['octoprint/run_octoprint.sh', 'octoprint/venv/bin/octoprint', 'marlin/marlin_linux'],
};

/** The reason a test of `piece` must skip, or false when the piece is built. */
export function peerMissing(piece: PeerPiece): string | false {
  const dir = peersDir();
  if (!dir) return 'no peers folder: set PRINTFARM_PEERS or build shared/peers-kit (build.sh) next to a .mirror folder';
  const absent = NEEDS[piece].filter((f) => !existsSync(path.join(dir, f)));
  if (absent.length) return `peer ${piece} is not built in ${dir} (missing ${absent.join(', ')}): run shared/peers-kit/build.sh`;
  if (!existsSync('/usr/bin/socat')) return 'socat is not installed';
  return false;
}

export function peerPath(...parts: string[]): string {
  const dir = peersDir();
  if (!dir) throw new Error('no peers folder');
  return path.join(dir, ...parts);
}
