// serial:// on real Klipper: klippy's G-code pseudo-terminal (the peers kit's Moonraker piece runs Klipper with an
// extruder and simulated heaters), through the real serialport binding.
import { peerMissing, peerPath } from './peers-env.js';
import { answers, fileExists, startPeer, untilPeer, type PeerProcess } from './peer-process.js';
import { reportTimings, walkPeer } from './peer-scenarios.js';

const TTY = '/tmp/printer_moonraker';
let peer: PeerProcess | null = null;

walkPeer({
  title: 'serial:// on Klipper (klippy pseudo-terminal)',
  skip: peerMissing('moonraker'),
  async start() {
    peer = startPeer('klipper', peerPath('moonraker', 'run_moonraker.sh'), ['sim']);
    await untilPeer(peer, 'Moonraker answering', answers('http://127.0.0.1:7125/server/info'));
    await untilPeer(peer, `the pty ${TTY}`, fileExists(TTY));
  },
  stop: async () => peer?.stop(),
  connectionUrl: `serial://${TTY}?baud=250000`,
  firmware: /Klipper/,
  console: { command: 'M105', reply: /T0?:\d/ },
  preamble: ['M109 S200'],
  feed: 1200,
  heatup: { target: 230, coldBelow: 120 },
  afterOurKill: 'failed',
  async restart() {
    // Klippy's own RESTART, typed on its console by someone else (Moonraker's API here).
    await fetch('http://127.0.0.1:7125/printer/gcode/script', {
      method: 'POST',
      body: JSON.stringify({ script: 'RESTART' }),
      headers: { 'Content-Type': 'application/json' },
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 1000));
  },
  wrongKey: 'a serial port has no key to refuse',
});
reportTimings();
