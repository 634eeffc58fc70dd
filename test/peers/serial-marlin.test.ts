// serial:// on real Marlin bugfix-2.1.x (its Linux HAL build on a pseudo-terminal), stock and "full" (emergency parser
// and MeatPack), through the real serialport binding.
import { peerMissing, peerPath } from './peers-env.js';
import { fileExists, startPeer, untilPeer, type PeerProcess } from './peer-process.js';
import { reportTimings, walkPeer } from './peer-scenarios.js';

for (const build of ['marlin', 'marlin_full'] as const) {
  const tty = `/tmp/ttyPeer_${build}`;
  let peer: PeerProcess | null = null;
  const start = async (): Promise<void> => {
    peer = startPeer(build, peerPath('marlin', 'run_marlin_pty.sh'), [tty], { MARLIN_BIN: build === 'marlin' ? 'marlin_linux' : 'marlin_linux_full' });
    await untilPeer(peer, `the pty ${tty}`, fileExists(tty));
  };
  walkPeer({
    title: `serial:// on Marlin (${build === 'marlin' ? 'stock' : 'full: emergency parser, MeatPack'})`,
    skip: peerMissing(build),
    start,
    stop: async () => peer?.stop(),
    connectionUrl: `serial://${tty}?baud=250000`,
    firmware: /Marlin/,
    console: { command: 'M115', reply: /FIRMWARE_NAME:Marlin/ },
    // Marlin's sim heaters are not driven here: cold extrusion allowed, as the peers kit does.
    preamble: ['M302 P1'],
    feed: 1200,
    heatup: { target: 230, coldBelow: 120 },
    // We stream every line: with our process gone the printer stops, and the job is recorded as interrupted.
    afterOurKill: 'failed',
    async restart() {
      // The firmware process ends and starts again on the same port: a board reset / cable pulled and put back.
      await peer!.stop(5000);
      await start();
    },
    wrongKey: 'a serial port has no key to refuse',
  });
}
reportTimings();
