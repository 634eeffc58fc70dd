// Each stand-in against what the real program answered (test/network/recorded/*.json, `npm run record:peers`): the
// same calls in the same order, and the stand-in may send nothing the real program does not, in no other JSON type,
// with the same status, media type and the values that matter.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startMoonrakerStandIn, type MoonrakerStandIn } from '../../src/simulator/moonraker/moonraker-standin.js';
import { startOctoPrintStandIn, type OctoPrintStandIn } from '../../src/simulator/octoprint/octoprint-standin.js';
import { MOONRAKER_EXCHANGES, OCTOPRINT_EXCHANGES, OCTOPRINT_KEY, perform, recordSocket, shapeDiff, valueAt, type Exchange, type Recording } from './recorded/exchanges.js';

const load = (kind: string): Recording => JSON.parse(readFileSync(path.join(import.meta.dirname, 'recorded', `${kind}.json`), 'utf8')) as Recording;

/** Compares one answer of the stand-in with the recorded one; returns the differences in words. */
function differences(rec: Recording['exchanges'][number], got: Awaited<ReturnType<typeof perform>>): string[] {
  const out: string[] = [];
  if (got.status !== rec.answer.status) out.push(`status ${got.status}, the real program answered ${rec.answer.status}`);
  if ((got.headers['content-type'] ?? '') !== (rec.answer.headers['content-type'] ?? '')) {
    out.push(`content-type "${got.headers['content-type']}", the real program sent "${rec.answer.headers['content-type']}"`);
  }
  if (rec.answer.headers.location !== undefined && got.headers.location !== rec.answer.headers.location) {
    out.push(`Location ${got.headers.location ?? '(none)'}, the real program sent ${rec.answer.headers.location}`);
  }
  out.push(...shapeDiff(rec.answer.body, got.body));
  for (const p of rec.same) {
    const want = valueAt(rec.answer.body, p);
    const have = valueAt(got.body, p);
    if (JSON.stringify(want) !== JSON.stringify(have)) out.push(`${p} is ${JSON.stringify(have)}, the real program said ${JSON.stringify(want)}`);
  }
  return out;
}

/** Safe to send again: a GET, or Moonraker's object query (a POST that only reads). */
const isRead = (ex: Exchange): boolean => ex.method === 'GET' || ex.path === '/printer/objects/query';

/** Runs the recorded script on `base` and checks every answer; all differences are reported at once. */
async function replay(base: string, rec: Recording, script: Exchange[], key: string | null): Promise<string[]> {
  assert.deepEqual(
    rec.exchanges.map((e) => e.name),
    script.map((e) => e.name),
    'the recording is of the current script: run `npm run record:peers` after changing test/network/recorded/exchanges.ts',
  );
  const found: string[] = [];
  for (const [i, ex] of script.entries()) {
    let diffs = differences(rec.exchanges[i]!, await perform(base, ex, key));
    // A read may come before the stand-in got where the real program was (Pausing before Paused on a loaded machine):
    // reads are asked again for a while; a write is never repeated.
    for (let tries = 0; diffs.length > 0 && isRead(ex) && tries < 40; tries++) {
      await new Promise((r) => setTimeout(r, 250));
      diffs = differences(rec.exchanges[i]!, await perform(base, ex, key));
    }
    found.push(...diffs.map((d) => `${ex.name}: ${d}`));
  }
  return found;
}

describe('the Moonraker stand-in answers as real Moonraker did', () => {
  const rec = load('moonraker');
  let s: MoonrakerStandIn;
  before(async () => {
    // The peers kit's Moonraker trusts loopback clients: no key, as recorded.
    s = await startMoonrakerStandIn({ port: 0, apiKey: null, simulator: { speed: 1 } });
  });
  after(() => s.close());

  it(`HTTP: every call the driver makes (${rec.program})`, async () => {
    let httpDiffs: string[] = [];
    const ws = await recordSocket(`ws://127.0.0.1:${s.port}/websocket`, async () => {
      httpDiffs = await replay(`http://127.0.0.1:${s.port}`, rec, MOONRAKER_EXCHANGES, null);
    });
    const socketDiffs = ws.calls.flatMap((c, i) => {
      const real = rec.socket![i]!;
      assert.equal(c.method, real.method);
      return shapeDiff(real.answer, c.answer).map((d) => `socket ${c.name}: ${d}`);
    });
    const notifyDiffs = Object.entries(ws.notifications).flatMap(([method, msg]) =>
      method in rec.notifications! ? shapeDiff(rec.notifications![method], msg).map((d) => `notification ${method}: ${d}`) : [`notification ${method}: never sent by the real program`],
    );
    assert.deepEqual([...httpDiffs, ...socketDiffs, ...notifyDiffs], []);
  });
});

describe('the OctoPrint stand-in answers as real OctoPrint did', () => {
  const rec = load('octoprint');
  let s: OctoPrintStandIn;
  before(async () => {
    s = await startOctoPrintStandIn({ port: 0, apiKey: OCTOPRINT_KEY, simulator: { speed: '1' } });
  });
  after(() => s.close());

  it(`HTTP: every call the driver makes (${rec.program})`, async () => {
    assert.deepEqual(await replay(`http://127.0.0.1:${s.port}`, rec, OCTOPRINT_EXCHANGES, OCTOPRINT_KEY), []);
  });
});
