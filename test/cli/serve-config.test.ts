// Every serve setting, as a flag and as its PRINTFARM_* variable: refusals name exactly what was typed, in one wording.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { CliUsageError } from '../../src/cli/command.js';
import { parseServeArgs } from '../../src/cli/serve.command.js';
import { parseBackupArgs } from '../../src/cli/backup.command.js';
import { parseRestoreArgs } from '../../src/cli/restore.command.js';
import { defaultWorkers, resolveStorageConfig } from '../../src/config.js';

const refused: Array<[string, string[], NodeJS.ProcessEnv, RegExp]> = [
  ['--port abc', ['--port', 'abc'], {}, /^invalid --port "abc": expected a whole number from 0 to 65535$/],
  ['--port=-1', ['--port=-1'], {}, /^invalid --port "-1"/],
  ['--port 70000', ['--port', '70000'], {}, /^invalid --port "70000"/],
  ['PRINTFARM_PORT=abc', [], { PRINTFARM_PORT: 'abc' }, /^invalid PRINTFARM_PORT "abc": expected a whole number from 0 to 65535$/],
  ['PRINTFARM_PORT=8o8o', [], { PRINTFARM_PORT: '8o8o' }, /^invalid PRINTFARM_PORT "8o8o"/],
  ['--env prod', ['--env', 'prod'], {}, /^invalid --env "prod": expected one of live, test, dev$/],
  ['PRINTFARM_ENV=prod', [], { PRINTFARM_ENV: 'prod' }, /^invalid PRINTFARM_ENV "prod": expected one of live, test, dev$/],
  ['--host with a space', ['--host', 'my host'], {}, /^invalid --host "my host": expected an IP address or host name$/],
  ['PRINTFARM_HOST with a space', [], { PRINTFARM_HOST: 'my host' }, /^invalid PRINTFARM_HOST "my host"/],
  ['--data-dir ""', ['--data-dir', ''], {}, /^invalid --data-dir "": must not be empty$/],
  ['PRINTFARM_DATA_DIR of blanks', [], { PRINTFARM_DATA_DIR: '  ' }, /^invalid PRINTFARM_DATA_DIR " {2}": must not be empty$/],
  ['--files-dir of blanks', ['--files-dir', ' '], {}, /^invalid --files-dir " ": must not be empty$/],
  [
    'PRINTFARM_LOG_LEVEL=verbose',
    [],
    { PRINTFARM_LOG_LEVEL: 'verbose' },
    /^invalid PRINTFARM_LOG_LEVEL "verbose": expected one of debug, info, warn, error, silent$/,
  ],
  ['PRINTFARM_LOG_LEVEL=INFO', [], { PRINTFARM_LOG_LEVEL: 'INFO' }, /^invalid PRINTFARM_LOG_LEVEL "INFO"/],
  ['PRINTFARM_TRUST_PROXY=true', [], { PRINTFARM_TRUST_PROXY: 'true' }, /^invalid PRINTFARM_TRUST_PROXY "true": expected 1 \(behind a reverse proxy\) or 0$/],
  ['PRINTFARM_MDNS=off', [], { PRINTFARM_MDNS: 'off' }, /^invalid PRINTFARM_MDNS "off": expected 1 \(mDNS: discover network printers, announce this server\) or 0$/],
  ['--no-mdns with a value', ['--no-mdns=1'], {}, /--no-mdns/],
  ['--workers -1', ['--workers', '-1'], {}, /--workers/],
  ['--workers 65', ['--workers', '65'], {}, /^invalid --workers "65": expected a whole number from 0 \(everything on the main thread\) to 64$/],
  ['--node-address without a scheme', ['--node-address', '192.168.1.20:8080'], {}, /^invalid --node-address "192\.168\.1\.20:8080": expected the base URL other nodes reach this one at/],
  ['PRINTFARM_NODE_NAME of blanks', [], { PRINTFARM_NODE_NAME: '   ' }, /^invalid PRINTFARM_NODE_NAME " {3}": expected a name of 1 to 100 characters$/],
  ['PRINTFARM_WORKERS=two', [], { PRINTFARM_WORKERS: 'two' }, /^invalid PRINTFARM_WORKERS "two": expected a whole number from 0/],
  ['a value with a quote', ['--host', 'a"b'], {}, /^invalid --host "a\\"b"/],
  ['an unknown flag', ['--bogus'], {}, /^unknown flag --bogus \(see printfarm serve --help\)$/],
  ['a short flag', ['-p', '80'], {}, /^unknown flag -p /],
  ['a flag without its value', ['--port'], {}, /--port/],
  ['a stray argument', ['now'], {}, /^unexpected argument: 'now' \(serve takes only flags\)$/],
  ['--database mysql://', ['--database', 'mysql://db/farm'], {}, /^invalid --database "mysql:\/\/db\/farm": expected a PostgreSQL URL postgres:\/\/user@host:port\/database/],
  ['PRINTFARM_DATABASE_URL a path', [], { PRINTFARM_DATABASE_URL: '/var/lib/farm.sqlite' }, /^invalid PRINTFARM_DATABASE_URL "\/var\/lib\/farm.sqlite": expected a PostgreSQL URL/],
];

describe('serve settings (in process)', () => {
  for (const [what, args, env, message] of refused) {
    it(`refuses ${what} as a usage error`, () => {
      assert.throws(
        () => parseServeArgs(args, env),
        (err: unknown) => err instanceof CliUsageError && message.test(err.message) && !err.message.includes('\n'),
      );
    });
  }

  it('a bad variable is not blamed when its flag overrides it', () => {
    assert.equal(parseServeArgs(['--port', '9000'], { PRINTFARM_PORT: 'abc' }).port, 9000);
  });

  it('applies defaults, then variables, then flags; an empty variable counts as unset', () => {
    assert.deepEqual(parseServeArgs([], {}), {
      host: '0.0.0.0',
      port: 8080,
      dataDir: path.resolve('data'),
      databaseUrl: null,
      env: 'live',
      logLevel: 'info',
      trustProxy: false,
      mdns: true,
      workers: defaultWorkers(),
    });
    const env = {
      PRINTFARM_HOST: '127.0.0.1',
      PRINTFARM_PORT: '9000',
      PRINTFARM_DATA_DIR: '/srv/pf',
      PRINTFARM_ENV: 'test',
      PRINTFARM_LOG_LEVEL: 'warn',
      PRINTFARM_TRUST_PROXY: '1',
      PRINTFARM_MDNS: '0',
      PRINTFARM_WORKERS: '3',
      PRINTFARM_DATABASE_URL: 'postgres://farm@db.lan:5432/printfarm',
    };
    assert.deepEqual(parseServeArgs([], env), {
      host: '127.0.0.1',
      port: 9000,
      dataDir: '/srv/pf',
      databaseUrl: 'postgres://farm@db.lan:5432/printfarm',
      env: 'test',
      logLevel: 'warn',
      trustProxy: true,
      mdns: false,
      workers: 3,
    });
    assert.deepEqual(parseServeArgs(['--port=9100', '--workers', '0', '--env', 'dev', '--data-dir', 'rel', '--database', 'postgresql://other/pf'], env), {
      host: '127.0.0.1',
      port: 9100,
      dataDir: path.resolve('rel'),
      databaseUrl: 'postgresql://other/pf',
      env: 'dev',
      logLevel: 'warn',
      trustProxy: true,
      mdns: false,
      workers: 0,
    });
    assert.deepEqual(
      (({ nodeName, nodeAddress }) => ({ nodeName, nodeAddress }))(parseServeArgs(['--node-name', ' bay 2 ', '--node-address', 'http://10.0.0.7:8080/'], { PRINTFARM_NODE_NAME: 'ignored' })),
      { nodeName: 'bay 2', nodeAddress: 'http://10.0.0.7:8080' },
      'the flags win, trimmed; the address without its last slash',
    );
    assert.ok(defaultWorkers() >= 1 && defaultWorkers() === Math.max(1, os.availableParallelism() - 1), 'cores - 1, at least 1');
    assert.equal(parseServeArgs([], { PRINTFARM_PORT: '', PRINTFARM_TRUST_PROXY: '0' }).port, 8080);
  });

  it('--files-dir (or PRINTFARM_FILES_DIR) names a shared file directory, made absolute; absent: none', () => {
    assert.equal(parseServeArgs([], {}).filesDir, undefined);
    assert.equal(parseServeArgs([], { PRINTFARM_FILES_DIR: '' }).filesDir, undefined);
    assert.equal(parseServeArgs([], { PRINTFARM_FILES_DIR: '/mnt/farm-files' }).filesDir, '/mnt/farm-files');
    assert.equal(parseServeArgs(['--files-dir', 'shared'], { PRINTFARM_FILES_DIR: '/mnt/other' }).filesDir, path.resolve('shared'));
  });

  it('--no-mdns turns network discovery off whatever PRINTFARM_MDNS says; the variable alone does too', () => {
    assert.equal(parseServeArgs(['--no-mdns'], {}).mdns, false);
    assert.equal(parseServeArgs(['--no-mdns'], { PRINTFARM_MDNS: '1' }).mdns, false);
    assert.equal(parseServeArgs([], { PRINTFARM_MDNS: '1' }).mdns, true);
    assert.equal(parseServeArgs([], { PRINTFARM_MDNS: '' }).mdns, true);
    assert.equal(parseServeArgs([], { PRINTFARM_MDNS: '0' }).mdns, false);
  });

  it('keys create checks only the settings it uses, with the same wording', () => {
    assert.deepEqual(resolveStorageConfig({}, { PRINTFARM_PORT: 'abc', PRINTFARM_ENV: 'dev', PRINTFARM_DATA_DIR: '/d' }), {
      dataDir: '/d',
      databaseUrl: null,
      env: 'dev',
    });
    assert.throws(() => resolveStorageConfig({}, { PRINTFARM_ENV: 'prod' }), /^ConfigError: invalid PRINTFARM_ENV "prod"/);
  });
});

describe('backup and restore on a PostgreSQL farm', () => {
  const env = { PRINTFARM_DATABASE_URL: 'postgres://farm@db.lan/printfarm' };
  it('printfarm backup takes the farm from the database URL (flag or variable), and --files-dir only with it', () => {
    assert.equal(parseBackupArgs(['--to', 'x.tar.gz'], env).databaseUrl, env.PRINTFARM_DATABASE_URL);
    assert.equal(parseBackupArgs(['--to', 'x.tar.gz', '--database', 'postgres://a@b/c', '--files-dir', '/shared'], {}).filesDir, '/shared');
    assert.equal(parseBackupArgs(['--to', 'x.tar.gz'], {}).databaseUrl, null, 'SQLite as before');
    assert.equal(parseBackupArgs(['--to', 'x.tar.gz'], {}).withFiles, false, 'SQLite as before');
    assert.throws(() => parseBackupArgs(['--to', 'x.tar.gz', '--files-dir', '/shared'], {}), (err: unknown) => err instanceof CliUsageError && /--files-dir is for a PostgreSQL farm/.test(err.message));
  });
  it('printfarm restore takes the database URL (flag or variable)', () => {
    assert.equal(parseRestoreArgs(['x.tar.gz'], env).databaseUrl, env.PRINTFARM_DATABASE_URL);
    assert.equal(parseRestoreArgs(['x.tar.gz', '--database', 'postgres://a@b/c'], {}).databaseUrl, 'postgres://a@b/c');
    assert.throws(() => parseRestoreArgs(['x.tar.gz', '--database', 'mysql://a'], {}), (err: unknown) => err instanceof CliUsageError && /PostgreSQL URL/.test(err.message));
  });
});
