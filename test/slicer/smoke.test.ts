import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, mintTestKey, bearer } from '../helpers/test-app.js';
import { gcode } from '../jobs/jobs-harness.js';

test('smoke', async () => {
  const app = await startTestApp();
  try {
    const admin = await mintTestKey(app);
    const made = await app.request('/v1/slicer/keys', { method: 'POST', headers: bearer(admin, true), body: '{}' });
    const mk = (await made.json()) as any;
    console.log(made.status, JSON.stringify(mk).slice(0, 300));
    const key = mk.data.key;
    const v = await app.request('/api/version', { headers: { 'X-Api-Key': key } });
    console.log(v.status, await v.text());
    const st = await app.request('/api/v1/storage', { headers: { 'X-Api-Key': key } });
    console.log(st.status, await st.text());
    const put = await app.request('/api/v1/files/local/x2/urgent/caf%C3%A9.gcode', { method: 'PUT', headers: { 'X-Api-Key': key, 'Print-After-Upload': '?1', 'Content-Type': 'text/x.gcode' }, body: gcode() });
    console.log(put.status, put.headers.get('location'), await put.text());
    const fd = new FormData();
    fd.append('print', 'true'); fd.append('path', 'high');
    fd.append('file', new Blob([gcode({ tag: 'b' })]), 'part b.gcode');
    const op = await app.request('/api/files/local', { method: 'POST', headers: { 'X-Api-Key': key }, body: fd });
    console.log(op.status, op.headers.get('location'), await op.text());
    const fd2 = new FormData();
    fd2.append('file', new Blob([gcode({ tag: 'c' })]), 'c.gcode'); fd2.append('root', 'gcodes'); fd2.append('print', 'true');
    const mr = await app.request('/server/files/upload', { method: 'POST', headers: { 'X-Api-Key': key }, body: fd2 });
    console.log(mr.status, await mr.text());
    const bad = await app.request('/api/v1/files/local/nope/a.gcode', { method: 'PUT', headers: { 'X-Api-Key': key }, body: gcode() });
    console.log(bad.status, bad.headers.get('content-type'), JSON.stringify(bad.statusText), await bad.text());
    const noKey = await app.request('/api/version');
    console.log(noKey.status, noKey.headers.get('www-authenticate'), await noKey.text());
    const jobs = await app.request('/v1/jobs', { headers: bearer(admin) });
    const j = (await jobs.json()) as any;
    console.log(j.data.map((x: any) => [x.name, x.priority, x.origin, x.slicer_api]));
  } finally {
    await app.close();
  }
});
