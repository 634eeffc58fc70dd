// moonraker:// against real Moonraker on real Klipper (host + Linux MCU with simulated heaters), from the peers kit.
import { peerMissing, peerPath } from './peers-env.js';
import { answers, startPeer, untilPeer, type PeerProcess } from './peer-process.js';
import { reportTimings, walkPeer } from './peer-scenarios.js';

const BASE = 'http://127.0.0.1:7125';
let peer: PeerProcess | null = null;

async function klippyReady(): Promise<boolean> {
  const res = await fetch(`${BASE}/printer/info`, { signal: AbortSignal.timeout(3000) });
  const body = (await res.json()) as { result?: { state?: string } };
  return body.result?.state === 'ready';
}

async function startMoonraker(): Promise<void> {
  peer = startPeer('moonraker', peerPath('moonraker', 'run_moonraker.sh'), ['sim']);
  await untilPeer(peer, 'Moonraker answering', answers(`${BASE}/server/info`));
  await untilPeer(peer, 'Klippy ready', klippyReady);
}

/** Posts to Moonraker's own API as another client (Mainsail, a script) would. */
async function post(path: string, body?: unknown): Promise<void> {
  const res = await fetch(BASE + path, {
    method: 'POST',
    ...(body instanceof FormData ? { body } : body ? { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } } : {}),
  });
  if (res.status >= 300) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

walkPeer({
  title: 'moonraker:// on Moonraker + Klipper',
  skip: peerMissing('moonraker'),
  start: startMoonraker,
  stop: async () => peer?.stop(),
  connectionUrl: 'moonraker://127.0.0.1:7125',
  firmware: /Klipper/,
  console: { command: 'M105', reply: /T0?:\d/ },
  // Klipper refuses cold extrusion (min_extrude_temp 170): heat first, as a slicer's start G-code does.
  preamble: ['M109 S200'],
  feed: 1200,
  heatup: { target: 230, coldBelow: 120 },
  afterOurKill: 'completed',
  async startExternal(gcode) {
    const form = new FormData();
    form.append('file', new Blob([gcode]), 'from-mainsail.gcode');
    form.append('print', 'true');
    await post('/server/files/upload', form);
  },
  async restart(phase) {
    if (phase === 'idle') {
      // Moonraker itself restarts (its own /server/restart): the websocket drops, Klippy stays.
      await post('/server/restart');
    } else {
      // Klippy RESTART mid-print: Klipper drops the print and reloads its config.
      await post('/printer/gcode/script', { script: 'RESTART' }).catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 1000));
    await untilPeer(peer!, 'Klippy ready again', klippyReady);
  },
  wrongKey:
    "the peers kit's Moonraker trusts every loopback client (trusted_clients 127.0.0.0/8), so it refuses no key here; the 401 path is covered against the stand-in and the recorded exchanges",
});
reportTimings();
