// octoprint:// against real OctoPrint 1.9.3 with real Marlin (the Linux HAL build on a pseudo-terminal) behind it.
import { peerMissing, peerPath } from './peers-env.js';
import { answers, startPeer, untilPeer, type PeerProcess } from './peer-process.js';
import { reportTimings, walkPeer } from './peer-scenarios.js';

const BASE = 'http://127.0.0.1:5000';
/** The application key the peers kit seeds (OCTOPRINT_APP_KEY in its README). */
const KEY = 'A99C0DE0A99C0DE0A99C0DE0A99C0DE0';
let peer: PeerProcess | null = null;

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(BASE + path, {
    method,
    headers: { 'X-Api-Key': KEY, ...(body && !(body instanceof FormData) ? { 'Content-Type': 'application/json' } : {}) },
    ...(body instanceof FormData ? { body } : body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const operational = async (): Promise<boolean> => (await api('GET', '/api/connection')).current?.state === 'Operational';

walkPeer({
  title: 'octoprint:// on OctoPrint 1.9.3 + Marlin',
  skip: peerMissing('octoprint'),
  async start() {
    peer = startPeer('octoprint', peerPath('octoprint', 'run_octoprint.sh'), ['marlin']);
    await untilPeer(peer, 'OctoPrint answering', answers(`${BASE}/api/version`, { 'X-Api-Key': KEY }), 120_000);
    await untilPeer(peer, 'Marlin connected', operational, 120_000);
  },
  stop: async () => peer?.stop(),
  connectionUrl: 'octoprint://127.0.0.1:5000',
  apiKey: KEY,
  // OctoPrint's REST API names itself, not the firmware behind it (that only appears in its terminal log).
  firmware: /^OctoPrint 1\.9\.3$/,
  console: { command: 'M115', reply: /FIRMWARE_NAME:Marlin/ },
  preamble: ['M302 P1'],
  feed: 1200,
  heatup: { target: 230, coldBelow: 120 },
  afterOurKill: 'completed',
  async startExternal(gcode) {
    const form = new FormData();
    form.append('file', new Blob([gcode]), 'from-octoprint-page.gcode');
    form.append('select', 'true');
    form.append('print', 'true');
    await api('POST', '/api/files/local', form);
  },
  async restart() {
    // OctoPrint's printer disconnected and connected again, as its Connection panel does it.
    await api('POST', '/api/connection', { command: 'disconnect' });
    await new Promise((r) => setTimeout(r, 3000));
    await api('POST', '/api/connection', { command: 'connect', port: '/tmp/ttyOctoMarlin', baudrate: 250000 });
    await untilPeer(peer!, 'Marlin connected again', operational, 120_000);
  },
  wrongKey: { apiKey: '0123456789ABCDEF0123456789ABCDEF' },
});
reportTimings();
