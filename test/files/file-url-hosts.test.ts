// The organization's file_url_hosts through the real app: PATCH validation, narrowing job downloads by name, address
// and range on every hop, and the 422 file_url_forbidden body; a resolver stub answers host names, sockets stay on 127.0.0.1.
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { countFiles } from '../../src/files/files.repository.js';
import { bearer, mintTestKey, startTestApp, type TestApp } from '../helpers/test-app.js';
import { stubResolver, trackConnectAttempts } from './files-harness.js';
import { cura } from './gcode-fixtures.js';
import { dbRow, dbRows } from '../helpers/test-database.js';

type Body = { success?: boolean; error: { code: string; message: string; details: string }; file_url_hosts: string[] };

describe('organization file_url_hosts', () => {
  const resolver = stubResolver({ 'nas.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });
  let t: TestApp;
  let key = '';
  let files: http.Server;
  let port = 0;
  let connects: ReturnType<typeof trackConnectAttempts>;
  before(async () => {
    t = await startTestApp({ resolveHost: resolver });
    key = await mintTestKey(t);
    files = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/part.gcode') res.writeHead(200).end(`${cura()}; ${url.searchParams.get('v') ?? ''}\n`);
      else if (url.pathname === '/to') res.writeHead(302, { Location: url.searchParams.get('url') ?? '/' }).end();
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    port = (files.address() as AddressInfo).port;
  });
  beforeEach(() => {
    connects = trackConnectAttempts();
  });
  afterEach(() => {
    connects.stop();
    // The app's own test requests go to 127.0.0.1 too: nothing else is ever tried.
    assert.deepEqual(connects.attempts.filter((ip) => ip !== '127.0.0.1'), []);
  });
  after(async () => {
    files.closeAllConnections();
    await new Promise((resolve) => files.close(resolve));
    await t.close();
  });

  const send = async (method: string, path: string, body: unknown): Promise<{ status: number; body: Body }> => {
    const res = await t.request(path, { method, headers: bearer(key, true), body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Body };
  };
  const setHosts = async (hosts: string[]): Promise<void> => {
    const res = await send('PATCH', '/v1/organization', { file_url_hosts: hosts });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  const jobCount = async (): Promise<number> => (await dbRow<{ n: number }>(t.handle, 'SELECT count(*) AS n FROM jobs'))!.n;
  let version = 0;
  /** A job create from `url`; each call's file differs (?v=) so a success really downloads and stores. */
  const createFrom = (url: string) => send('POST', '/v1/jobs', { file_url: url.replace('part.gcode', `part.gcode?v=${++version}`) });

  /** 422 file_url_forbidden with `details`, and neither a job nor a file stored. */
  async function refused(url: string, details: string, message: RegExp): Promise<void> {
    const [jobs, stored] = [await jobCount(), await countFiles(t.handle.db)];
    const res = await createFrom(url);
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.deepEqual({ ...res.body.error, message: undefined }, { code: 'file_url_forbidden', message: undefined, details });
    assert.equal(res.body.success, false);
    assert.match(res.body.error.message, message);
    assert.equal(await jobCount(), jobs);
    assert.equal(await countFiles(t.handle.db), stored);
  }

  it('is [] by default: any host allowed, but never a link-local address', async () => {
    assert.deepEqual(((await (await t.request('/v1/organization', { headers: bearer(key) })).json()) as Body).file_url_hosts, []);
    assert.equal((await createFrom(`http://127.0.0.1:${port}/part.gcode`)).status, 201);
    await refused('http://169.254.169.254/latest/meta-data/iam/', 'link_local', /^file_url: 169\.254\.169\.254 is a link-local address \(169\.254\.0\.0\/16\)$/);
  });

  it('refuses bad entries with 400 naming the entry, and keeps the setting as it was', async () => {
    await setHosts(['nas.test']);
    const bad: Array<[unknown, RegExp]> = [
      [['http://nas.test'], /^file_url_hosts\[0\]: "http:\/\/nas\.test" expected a host name/],
      [['nas.test', '10.0.0.0/33'], /^file_url_hosts\[1\]: "10\.0\.0\.0\/33" not a valid CIDR range/],
      [['fd00::/200'], /^file_url_hosts\[0\]: .* not a valid CIDR range/],
      [['*'], /^file_url_hosts\[0\]/],
      [[''], /file_url_hosts/],
      [['a.test', 'a.test'], /file_url_hosts/],
      [Array.from({ length: 101 }, (_, i) => `h${i}.test`), /file_url_hosts/],
      ['nas.test', /file_url_hosts/],
      [[7], /file_url_hosts/],
    ];
    for (const [value, message] of bad) {
      const res = await send('PATCH', '/v1/organization', { file_url_hosts: value });
      assert.equal(res.status, 400, JSON.stringify(value));
      assert.equal(res.body.error.code, 'invalid_request');
      assert.match(res.body.error.message, message, JSON.stringify(value));
    }
    assert.deepEqual(((await (await t.request('/v1/organization', { headers: bearer(key) })).json()) as Body).file_url_hosts, ['nas.test']);
  });

  it('narrows downloads to the listed names (stored in lower case), on the first request and every redirect', async () => {
    const res = await send('PATCH', '/v1/organization', { file_url_hosts: ['NAS.test', '*.farm.test'] });
    assert.deepEqual(res.body.file_url_hosts, ['nas.test', '*.farm.test']);
    assert.equal((await createFrom(`http://nas.test:${port}/part.gcode`)).status, 201);
    await refused(`http://127.0.0.1:${port}/part.gcode`, 'not_in_file_url_hosts', /^file_url: host 127\.0\.0\.1 is not in the organization's file_url_hosts$/);
    const asked = resolver.calls.length;
    await refused(`http://other.test:${port}/part.gcode`, 'not_in_file_url_hosts', /^file_url: host other\.test is not in the organization's file_url_hosts$/);
    assert.equal(resolver.calls.length, asked, 'a name outside a list of names is refused without a lookup');
    const hop = `http://other.test:${port}/part.gcode`;
    await refused(
      `http://nas.test:${port}/to?url=${encodeURIComponent(hop)}`,
      'not_in_file_url_hosts',
      /^file_url: the redirect to http:\/\/other\.test:\d+\/part\.gcode\?v=\d+ is refused: host other\.test is not in the organization's file_url_hosts$/,
    );
  });

  it('an address or range in the list allows names that resolve into it', async () => {
    await setHosts(['127.0.0.0/8']);
    assert.equal((await createFrom(`http://other.test:${port}/part.gcode`)).status, 201);
    assert.equal((await createFrom(`http://127.0.0.1:${port}/part.gcode`)).status, 201);
    await setHosts(['192.168.0.0/16', 'nas.test']);
    await refused(`http://other.test:${port}/part.gcode`, 'not_in_file_url_hosts', /^file_url: host other\.test \(127\.0\.0\.1\) is not in the organization's file_url_hosts$/);
    assert.equal((await createFrom(`http://nas.test:${port}/part.gcode`)).status, 201);
  });

  it('cannot allow a forbidden address class', async () => {
    await setHosts(['169.254.0.0/16', '0.0.0.0/0']);
    await refused('http://169.254.169.254/latest/', 'link_local', /169\.254\.169\.254 is a link-local address/);
    await refused('http://255.255.255.255/a.gcode', 'broadcast', /the broadcast address/);
  });

  it('is its own setting: [] allows any host again, and webhook_allowed_hosts does not narrow downloads', async () => {
    await setHosts(['nas.test']);
    await setHosts([]);
    const org = await send('PATCH', '/v1/organization', { webhook_allowed_hosts: ['hooks.test'] });
    assert.deepEqual([org.body.file_url_hosts, (org.body as unknown as { webhook_allowed_hosts: string[] }).webhook_allowed_hosts], [[], ['hooks.test']]);
    assert.equal((await createFrom(`http://other.test:${port}/part.gcode`)).status, 201);
  });
});
