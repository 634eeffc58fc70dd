// `printfarm serve` as a real child process: start, first admin key, restart, env vars, bad flags, graceful SIGTERM, newer schema.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pkg from '../../package.json' with { type: 'json' };
import { main } from '../../src/cli/run-cli.js';
import { silentLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';
import { authTest, captureLog, freePort, keyIn, LISTENING, runCli, runProcess, startServe, stop, tempDir } from './serve-harness.js';

function apiKeyCount(dbFile: string): number {
  const db = new BetterSqlite3(dbFile, { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM api_keys').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('printfarm serve: first start and restart', () => {
  let dataDir: string;
  let firstKey: string;

  it('creates the data dir, answers /healthz and writes the admin key once to a 0600 file', async () => {
    dataDir = path.join(await tempDir(), 'nested', 'data');
    // The variables are overridden by the flags (a flag wins over its variable).
    const { proc, url } = await startServe(['--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--env', 'live'], {
      PRINTFARM_PORT: 'not-a-port',
      PRINTFARM_ENV: 'dev',
      PRINTFARM_DATA_DIR: path.join(dataDir, 'elsewhere'),
    });

    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(((await health.json()) as { status: string }).status, 'ok');

    const keyFile = path.join(dataDir, 'initial-admin-key.txt');
    assert.ok(existsSync(keyFile), 'initial-admin-key.txt written');
    assert.ok(!existsSync(path.join(dataDir, 'elsewhere')), '--data-dir won over PRINTFARM_DATA_DIR');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    const fileKey = keyIn(readFileSync(keyFile, 'utf8'));
    assert.ok(fileKey, 'the file holds a key');
    assert.match(fileKey, /^svc_live_/);
    assert.equal(keyIn(proc.stdout()), fileKey, 'the console shows the same key');
    assert.ok(proc.stdout().includes(keyFile), 'the banner says where the file is');
    firstKey = fileKey;

    const auth = await authTest(url, firstKey);
    assert.equal(auth.status, 200);
    assert.equal(((await auth.json()) as { authenticated: boolean }).authenticated, true);

    const page = await fetch(`${url}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);

    assert.deepEqual(await stop(proc), { code: 0, signal: null });
  });

  it('a second start creates no other key and the first one still works', async () => {
    const keyFile = path.join(dataDir, 'initial-admin-key.txt');
    const before = readFileSync(keyFile, 'utf8');
    const { proc, url } = await startServe(['--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir]);
    assert.equal(keyIn(proc.stdout()), undefined, 'no key printed on a later start');
    assert.equal(readFileSync(keyFile, 'utf8'), before);
    assert.equal((await authTest(url, firstKey)).status, 200);
    assert.deepEqual(await stop(proc), { code: 0, signal: null });
    assert.equal(apiKeyCount(path.join(dataDir, 'printfarm.sqlite')), 1);
  });
});

describe('npm start', () => {
  it('`npm start -- --port P --data-dir D` serves /healthz and writes D/initial-admin-key.txt', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const port = await freePort();
    // Its own process group, so the signal reaches npm, the shell and node alike.
    const proc = runProcess('npm', ['start', '--', '--host', '127.0.0.1', '--port', String(port), '--data-dir', dataDir], {}, true);
    try {
      const [, url] = await proc.waitForOutput(LISTENING);
      assert.equal(url, `http://127.0.0.1:${port}`);
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
      assert.equal(statSync(path.join(dataDir, 'initial-admin-key.txt')).mode & 0o777, 0o600);
    } finally {
      process.kill(-proc.child.pid!, 'SIGTERM');
    }
    await proc.exited;
    assert.match(proc.stdout(), /stopped, database closed/);
  });
});

describe('printfarm serve: graceful shutdown', () => {
  it('SIGTERM refuses new connections, finishes the request in flight, exits 0 and closes the database cleanly', async () => {
    const dataDir = await tempDir();
    const { proc, url } = await startServe(['--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir]);
    const key = keyIn(proc.stdout())!;
    const { port } = new URL(url);

    // A create whose body arrives slowly: the request is in flight while the signal comes.
    const req = http.request({
      host: '127.0.0.1',
      port: Number(port),
      method: 'POST',
      path: '/v1/api-keys',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'Transfer-Encoding': 'chunked',
        Expect: '100-continue',
      },
    });
    const response = new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
      req.once('response', (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
        res.once('error', reject);
      });
      req.once('error', reject);
    });
    // The server answers 100 Continue once the handler reads the body (a valid key, a known route), so after it the request is in flight.
    req.flushHeaders();
    await once(req, 'continue');
    req.write('{"name":"made during shutdown",');

    proc.child.kill('SIGTERM');
    await proc.waitForOutput(/SIGTERM received, shutting down \(1 requests in flight\)/);
    await assert.rejects(fetch(`${url}/healthz`), 'a new connection is refused while stopping');

    req.end('"scopes":["jobs:read"]}');
    const res = await response;
    assert.equal(res.status, 201, res.body);
    const created = JSON.parse(res.body) as { id: string; key: string };
    assert.match(created.key, /^svc_live_/);
    assert.equal(res.connection, 'close');

    assert.deepEqual(await proc.exited, { code: 0, signal: null });
    assert.match(proc.stdout(), /stopped, database closed/);

    const dbFile = path.join(dataDir, 'printfarm.sqlite');
    const wal = `${dbFile}-wal`;
    assert.ok(!existsSync(wal) || statSync(wal).size === 0, 'WAL folded into the database');
    const db = new BetterSqlite3(dbFile, { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      const row = db.prepare('SELECT name FROM api_keys WHERE id = ?').get(created.id) as { name: string } | undefined;
      assert.equal(row?.name, 'made during shutdown', 'the in-flight write was committed');
    } finally {
      db.close();
    }
  });
});

describe('printfarm serve: configuration and refusals', { concurrency: true }, () => {
  it('takes every setting from PRINTFARM_* environment variables', async () => {
    const dataDir = await tempDir();
    const port = await freePort();
    const { proc, url } = await startServe([], {
      PRINTFARM_HOST: '127.0.0.1',
      PRINTFARM_PORT: String(port),
      PRINTFARM_DATA_DIR: dataDir,
      PRINTFARM_ENV: 'test',
    });
    assert.equal(url, `http://127.0.0.1:${port}`);
    assert.match(proc.stdout(), /\(env test, data dir /);
    assert.ok(existsSync(path.join(dataDir, 'printfarm.sqlite')));
    assert.match(keyIn(proc.stdout()) ?? '', /^svc_test_/, 'a test-mode server mints test keys');
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    assert.deepEqual(await stop(proc), { code: 0, signal: null });
  });

  it('refuses a bad flag or variable with one line naming what was typed, exit status 2, before touching the data dir', async () => {
    const cases: Array<[string[], NodeJS.ProcessEnv, RegExp]> = [
      [['--port', 'abc'], {}, /invalid --port "abc": expected a whole number from 0 to 65535$/],
      [['--env', 'prod'], {}, /invalid --env "prod": expected one of live, test, dev$/],
      [[], { PRINTFARM_PORT: 'abc' }, /invalid PRINTFARM_PORT "abc": expected a whole number from 0 to 65535$/],
      [[], { PRINTFARM_LOG_LEVEL: 'verbose' }, /invalid PRINTFARM_LOG_LEVEL "verbose": expected one of debug, info, warn, error, silent$/],
      [[], { PRINTFARM_TRUST_PROXY: 'yes' }, /invalid PRINTFARM_TRUST_PROXY "yes": expected 1 \(behind a reverse proxy\) or 0$/],
    ];
    await Promise.all(
      cases.map(async ([args, env, message]) => {
        const dataDir = path.join(await tempDir(), 'data');
        const proc = runCli(['serve', '--data-dir', dataDir, ...args], env);
        const exit = await proc.exited;
        assert.equal(exit.code, 2, proc.stderr());
        const lines = proc.stderr().trim().split('\n');
        assert.equal(lines.length, 1, proc.stderr());
        assert.match(lines[0]!, /^printfarm serve: /);
        assert.match(lines[0]!, message);
        assert.ok(!existsSync(dataDir), 'nothing created');
      }),
    );
  });

  it('refuses a port already in use with one line and exit status 1', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = blocker.address() as net.AddressInfo;
      const dataDir = await tempDir();
      const proc = runCli(['serve', '--host', '127.0.0.1', '--port', String(port), '--data-dir', dataDir]);
      const exit = await proc.exited;
      assert.equal(exit.code, 1);
      const lines = proc.stderr().trim().split('\n');
      assert.equal(lines.length, 1, proc.stderr());
      assert.match(lines[0]!, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use`));
      assert.ok(!existsSync(path.join(dataDir, 'initial-admin-key.txt')), 'no key minted by a start that could not listen');
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });

  it('refuses a database written by a newer version with a clear message', async () => {
    const dataDir = await tempDir();
    const dbFile = path.join(dataDir, 'printfarm.sqlite');
    const db = new BetterSqlite3(dbFile);
    db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT');
    db.prepare('INSERT INTO schema_version VALUES (999, ?, ?)').run('from the future', new Date().toISOString());
    db.close();

    const proc = runCli(['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir]);
    const exit = await proc.exited;
    assert.equal(exit.code, 1);
    const lines = proc.stderr().trim().split('\n');
    assert.equal(lines.length, 1, proc.stderr());
    assert.match(lines[0]!, /schema version 999, newer than this program knows/);
    assert.ok(!existsSync(path.join(dataDir, 'initial-admin-key.txt')), 'no key minted into a refused database');
  });
});

describe('startServer (in process)', () => {
  it('cuts a request that never finishes once the grace period is over, then closes the database', async () => {
    const dataDir = await tempDir();
    const server = await startServer(
      { host: '127.0.0.1', port: 0, dataDir, env: 'live' },
      { logger: silentLogger, shutdownGraceMs: 200 },
    );
    const { port } = new URL(server.url);
    const req = http.request({
      host: '127.0.0.1',
      port: Number(port),
      method: 'POST',
      path: '/v1/api-keys',
      // With the key: a body is read only once the request passed authentication.
      headers: {
        Authorization: `Bearer ${server.initialAdminKey}`,
        'Content-Type': 'application/json',
        'Transfer-Encoding': 'chunked',
        Expect: '100-continue',
      },
    });
    const outcome = new Promise<string>((resolve) => {
      req.once('response', () => resolve('response'));
      req.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
    req.flushHeaders();
    await once(req, 'continue');
    req.write('{"name":');
    assert.equal(server.inFlight(), 1);

    await server.close();
    assert.equal(await outcome, 'ECONNRESET', 'the stuck request was cut');
    await assert.rejects(server.deps.db.selectFrom('jobs').select('id').execute(), 'database closed');
    await server.close(); // a second close is harmless
  });
});

describe('printfarm --help and --version', () => {
  it('--version prints the package version', async () => {
    const proc = runCli(['--version']);
    assert.equal((await proc.exited).code, 0);
    assert.equal(proc.stdout().trim(), pkg.version);
  });

  it('--help lists serve (in process)', async (t) => {
    const out = captureLog(t);
    assert.equal(await main(['--help']), 0);
    assert.match(out.join('\n'), /^\s+serve\s+Run the API server and dashboard$/m);
  });

  it('serve --help lists every flag with its variable and default (in process)', async (t) => {
    const out = captureLog(t);
    assert.equal(await main(['serve', '--help']), 0);
    const text = out.join('\n');
    const flags: Array<[string, string, string]> = [
      ['--host', 'PRINTFARM_HOST', '0.0.0.0'],
      ['--port', 'PRINTFARM_PORT', '8080'],
      ['--data-dir', 'PRINTFARM_DATA_DIR', './data'],
      ['--env', 'PRINTFARM_ENV', 'live'],
    ];
    for (const [flag, env, def] of flags) {
      assert.match(text, new RegExp(`${flag} .*${env}\\s+default ${def.replace(/\./g, '\\.')}`));
    }
    assert.match(text, /^\s+PRINTFARM_LOG_LEVEL\s+debug, info, warn, error or silent\s+default info$/m);
    assert.match(text, /^\s+PRINTFARM_TRUST_PROXY\s+1 behind a reverse proxy/m);
  });
});
