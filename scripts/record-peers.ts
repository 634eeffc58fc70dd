// Records what the real Moonraker and OctoPrint (built by shared/peers-kit) answer to every call our drivers make,
// masked, into test/network/recorded/*.json: `npm run record:peers [-- --only moonraker|octoprint]`.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { answers, startPeer, untilPeer } from '../test/peers/peer-process.js';
import { peerMissing, peerPath } from '../test/peers/peers-env.js';
import {
  MOONRAKER_EXCHANGES,
  OCTOPRINT_EXCHANGES,
  OCTOPRINT_KEY,
  recordSocket,
  runScript,
  type Exchange,
  type Recording,
} from '../test/network/recorded/exchanges.js';

const OUT = path.join(process.cwd(), 'test', 'network', 'recorded');

function entry(ex: Exchange, answer: Recording['exchanges'][number]['answer']): Recording['exchanges'][number] {
  const { name, settleMs: _s, same, ...request } = ex;
  return { name, request, same: same ?? [], answer };
}

async function save(kind: string, rec: Recording): Promise<void> {
  const file = path.join(OUT, `${kind}.json`);
  await writeFile(file, JSON.stringify(rec, null, 2) + '\n');
  console.log(`${kind}: ${rec.exchanges.length} exchanges${rec.socket ? `, ${rec.socket.length} socket calls` : ''} -> ${path.relative(process.cwd(), file)}`);
}

async function recordMoonraker(): Promise<void> {
  const base = 'http://127.0.0.1:7125';
  const peer = startPeer('moonraker', peerPath('moonraker', 'run_moonraker.sh'), ['sim']);
  try {
    await untilPeer(peer, 'Moonraker answering', answers(`${base}/server/info`));
    await untilPeer(peer, 'Klippy ready', async () => ((await (await fetch(`${base}/printer/info`)).json()) as { result?: { state?: string } }).result?.state === 'ready');
    const server = (await (await fetch(`${base}/server/info`)).json()) as { result: { moonraker_version: string } };
    const printer = (await (await fetch(`${base}/printer/info`)).json()) as { result: { software_version: string } };
    const exchanges: Recording['exchanges'] = [];
    const ws = await recordSocket(`ws://127.0.0.1:7125/websocket`, () => runScript(base, MOONRAKER_EXCHANGES, null, (ex, a) => exchanges.push(entry(ex, a))));
    await save('moonraker', {
      program: `Moonraker ${server.result.moonraker_version} on Klipper ${printer.result.software_version} (peers kit, Linux MCU with simulated heaters)`,
      recorded_with: 'npm run record:peers -- --only moonraker',
      exchanges,
      socket: ws.calls,
      notifications: ws.notifications,
    });
  } finally {
    await peer.stop();
  }
}

async function recordOctoPrint(): Promise<void> {
  const base = 'http://127.0.0.1:5000';
  const peer = startPeer('octoprint', peerPath('octoprint', 'run_octoprint.sh'), ['marlin']);
  try {
    const key = { 'X-Api-Key': OCTOPRINT_KEY };
    await untilPeer(peer, 'OctoPrint answering', answers(`${base}/api/version`, key), 120_000);
    await untilPeer(peer, 'Marlin connected', async () => ((await (await fetch(`${base}/api/connection`, { headers: key })).json()) as { current?: { state?: string } }).current?.state === 'Operational', 120_000);
    const version = (await (await fetch(`${base}/api/version`, { headers: key })).json()) as { text: string };
    const exchanges: Recording['exchanges'] = [];
    await runScript(base, OCTOPRINT_EXCHANGES, OCTOPRINT_KEY, (ex, a) => exchanges.push(entry(ex, a)));
    await save('octoprint', {
      program: `${version.text} with Marlin bugfix-2.1.x (peers kit, Linux HAL on a pseudo-terminal)`,
      recorded_with: 'npm run record:peers -- --only octoprint',
      exchanges,
    });
  } finally {
    await peer.stop();
  }
}

const { values } = parseArgs({ options: { only: { type: 'string' } } });
const kinds: Record<string, { piece: 'moonraker' | 'octoprint'; run: () => Promise<void> }> = {
  moonraker: { piece: 'moonraker', run: recordMoonraker },
  octoprint: { piece: 'octoprint', run: recordOctoPrint },
};
for (const [kind, k] of Object.entries(kinds)) {
  if (values.only && values.only !== kind) continue;
  const missing = peerMissing(k.piece);
  if (missing) {
    console.error(`${kind}: not recorded: ${missing}`);
    process.exitCode = 1;
    continue;
  }
  await k.run();
}
