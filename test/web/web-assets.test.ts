// The dashboard's static files: the favicon is served as a real icon, and the page advertises no feature that is not built.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readAsset } from '../../src/assets.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

describe('dashboard assets', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('answers /favicon.ico with an ICO image, and the page links it', async () => {
    const res = await t.request('/favicon.ico');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/x-icon');
    const bytes = Buffer.from(await res.arrayBuffer());
    // ICONDIR: reserved 0, type 1 (icon), at least one image.
    assert.equal(bytes.readUInt16LE(0), 0);
    assert.equal(bytes.readUInt16LE(2), 1);
    assert.ok(bytes.readUInt16LE(4) >= 1);
    assert.deepEqual(bytes, readAsset('web/favicon.ico'), 'the shipped file (embedded in the binary like every web/ file)');
    assert.match(await (await t.request('/')).text(), /<link rel="icon" href="\/favicon.ico"/);
  });

  it('mentions no unbuilt feature (printers, jobs, queue, materials, analytics)', () => {
    for (const file of ['web/index.html', 'web/app.js']) {
      const text = readAsset(file)!.toString('utf8');
      assert.doesNotMatch(text, /\b(printers?|jobs?|queue|materials?|analytics)\b/i, file);
    }
  });
});
