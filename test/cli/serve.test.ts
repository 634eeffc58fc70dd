// `printfarm serve` as a real child process: start, first admin key, restart, env vars, bad flags, graceful SIGTERM, newer schema.
import { after, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pkg from '../../package.json' with { type: 'json' };
import { CliUsageError } from '../../src/cli/command.js';
import { main } from '../../src/cli/run-cli.js';
import { parseServeArgs } from '../../src/cli/serve.command.js';
import { silentLogger } from '../../src/logger.js';
import { startServer } from '../../src/server.js';

const MAIN = path.join(process.cwd(), 'src', 'main.ts');
/** A guard against a hung child, not a speed expectation: a start normally takes a second or two. */
const HANG_GUARD_MS = 120_000;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface ServeProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout text matching `re` (accumulated output), rejects if the process ends first. */
  waitForOutput(re: RegExp): Promise<RegExpMatchArray>;
  exited: Promise<Exit>;
}

const children = new Set<ChildProcess>();
const tempDirs: string[] = [];

function runCli(args: string[], env: NodeJS.ProcessEnv = {}): ServeProcess {
  return runProcess(process.execPath, ['--import', 'tsx', MAIN, ...args], env);
}

function runProcess(file: string, args: string[], env: NodeJS.ProcessEnv = {}, detached = false): ServeProcess {
  const child = spawn(file, args, {
    cwd: process.cwd(),
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForOutput(re) {
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const m = out.match(re);
          if (m) {
            cleanup();
            resolve(m);
          }
          return Boolean(m);
        };
        const onExit = (): void => {
          if (check()) return;
          cleanup();
          reject(new Error(`process ended before printing ${re}\nstdout: ${out}\nstderr: ${err}`));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${re} after ${HANG_GUARD_MS} ms\nstdout: ${out}\nstderr: ${err}`));
        }, HANG_GUARD_MS);
        const cleanup = (): void => {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.off('close', onExit);
        };
        if (check()) return;
        child.stdout!.on('data', check);
        child.once('close', onExit);
      });
    },
  };
}

/** The test runner's own PRINTFARM_* settings must not leak into the child. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PRINTFARM_')) env[k] = v;
  return env;
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'printfarm-serve-'));
  tempDirs.push(dir);
  return dir;
}

const LISTENING = /listening on (http:\/\/[^\s]+) \(env (\w+), data dir ([^)]+)\)/;

async function startServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ proc: ServeProcess; url: string }> {
  const proc = runCli(['serve', ...args], env);
  const m = await proc.waitForOutput(LISTENING);
  return { proc, url: m[1]! };
}

async function stop(proc: ServeProcess): Promise<Exit> {
  proc.child.kill('SIGTERM');
  return proc.exited;
}

/** Collects what console.log prints during one test (the CLI's in-process output). */
function captureLog(t: TestContext): string[] {
  const lines: string[] = [];
  t.mock.method(console, 'log', (...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  });
  return lines;
}

const keyIn = (text: string): string | undefined => /\bsvc_(?:live|test|dev)_[A-Za-z0-9]{32,}\b/.exec(text)?.[0];

function authTest(url: string, key: string): Promise<Response> {
  return fetch(`${url}/v1/auth/test`, { headers: { Authorization: `Bearer ${key}` } });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function apiKeyCount(dbFile: string): number {
  const db = new BetterSqlite3(dbFile, { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM api_keys').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

after(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(tempDirs.map((d) => rm(d, { recursive: true, force: true })));
});

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
    // The server answers 100-continue in the same tick it hands the request to the app, so after it the request is in flight.
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

  it('refuses --port abc and --env prod with one line and exit status 2, before touching the data dir', async () => {
    await Promise.all(
      [
        [['--port', 'abc'], /invalid --port "abc": expected a whole number from 0 to 65535/],
        [['--env', 'prod'], /invalid --env "prod": expected one of live, test, dev/],
      ].map(async ([args, message]) => {
        const dataDir = path.join(await tempDir(), 'data');
        const proc = runCli(['serve', '--data-dir', dataDir, ...(args as string[])]);
        const exit = await proc.exited;
        assert.equal(exit.code, 2, proc.stderr());
        const lines = proc.stderr().trim().split('\n');
        assert.equal(lines.length, 1, proc.stderr());
        assert.match(lines[0]!, /^printfarm serve: /);
        assert.match(lines[0]!, message as RegExp);
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
    assert.equal(server.deps.sqlite.open, false, 'database closed');
    await server.close(); // a second close is harmless
  });
});

describe('serve flag parsing (in process)', () => {
  const refused: Array<[string, string[], NodeJS.ProcessEnv, RegExp]> = [
    ['--port abc', ['--port', 'abc'], {}, /^invalid --port "abc"/],
    ['--port=-1', ['--port=-1'], {}, /^invalid --port "-1"/],
    ['--port 70000', ['--port', '70000'], {}, /^invalid --port "70000"/],
    ['PRINTFARM_PORT=8o8o', [], { PRINTFARM_PORT: '8o8o' }, /^invalid --port "8o8o"/],
    ['--env prod', ['--env', 'prod'], {}, /^invalid --env "prod": expected one of live, test, dev$/],
    ['PRINTFARM_ENV=prod', [], { PRINTFARM_ENV: 'prod' }, /^invalid --env "prod"/],
    ['--host with a space', ['--host', 'my host'], {}, /^invalid --host "my host"/],
    ['--data-dir ""', ['--data-dir', ''], {}, /^invalid --data-dir: must not be empty$/],
    ['an unknown flag', ['--bogus'], {}, /^unknown flag --bogus \(see printfarm serve --help\)$/],
    ['a short flag', ['-p', '80'], {}, /^unknown flag -p /],
    ['a flag without its value', ['--port'], {}, /--port/],
    ['a stray argument', ['now'], {}, /^unexpected argument: 'now' \(serve takes only flags\)$/],
  ];
  for (const [what, args, env, message] of refused) {
    it(`refuses ${what} as a usage error`, () => {
      assert.throws(
        () => parseServeArgs(args, env),
        (err: unknown) => err instanceof CliUsageError && message.test(err.message) && !err.message.includes('\n'),
      );
    });
  }

  it('applies defaults, then variables, then flags', () => {
    assert.deepEqual(parseServeArgs([], {}), { host: '0.0.0.0', port: 8080, dataDir: path.resolve('data'), env: 'live' });
    const env = { PRINTFARM_HOST: '127.0.0.1', PRINTFARM_PORT: '9000', PRINTFARM_DATA_DIR: '/srv/pf', PRINTFARM_ENV: 'test' };
    assert.deepEqual(parseServeArgs([], env), { host: '127.0.0.1', port: 9000, dataDir: '/srv/pf', env: 'test' });
    assert.deepEqual(parseServeArgs(['--port=9100', '--env', 'dev', '--data-dir', 'rel'], env), {
      host: '127.0.0.1',
      port: 9100,
      dataDir: path.resolve('rel'),
      env: 'dev',
    });
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
  });
});
