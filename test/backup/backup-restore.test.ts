// `printfarm backup` while the real server runs and `printfarm restore` into an empty directory: the restored farm
// answers the old API key with the same data, and its printer credentials still open; bad archives change nothing.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { startServer } from '../../src/server.js';
import { silentLogger } from '../../src/logger.js';
import { loadSecretBox } from '../../src/printers/secret-box.js';
import { openDatabase } from '../../src/storage/db.js';
import { callServer } from '../helpers/running-server.js';
import { runCli } from '../cli/serve-harness.js';

const root = mkdtempSync(path.join(tmpdir(), 'printfarm-backup-'));
after(() => rmSync(root, { recursive: true, force: true }));
const dir = (name: string): string => path.join(root, name);
const config = (dataDir: string) => ({ host: '127.0.0.1', port: 0, dataDir, env: 'live' as const });

async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = runCli(args);
  const exit = await proc.exited;
  return { code: exit.code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** The sealed api_key of a printer as stored in a data directory's database. */
function sealedKey(dataDir: string, printerId: string): string {
  const handle = openDatabase(path.join(dataDir, 'printfarm.sqlite'));
  try {
    return (handle.sqlite.prepare('SELECT api_key_sealed AS s FROM printers WHERE id = ?').get(printerId) as { s: string }).s;
  } finally {
    void handle.close();
  }
}

describe('backup and restore', () => {
  let key = '';
  let printerId = '';
  const archive = dir('farm.tar.gz');

  it('backs up a running farm with the CLI, its secret key and files included', async () => {
    const server = await startServer(config(dir('a')), { logger: silentLogger });
    try {
      key = server.initialAdminKey!;
      const created = await callServer(server, key, 'POST', '/v1/printers', {
        name: 'Voron',
        connection_url: 'moonraker://127.0.0.1:9',
        api_key: 'moonraker-secret',
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      printerId = created.body.id;
      assert.equal((await callServer(server, key, 'PATCH', '/v1/organization', { name: 'Backed up farm' })).status, 200);
      // A stored file, and an upload in progress that must not travel.
      mkdirSync(dir('a/files/ab/cd'), { recursive: true });
      writeFileSync(dir('a/files/ab/cd/abcd.gcode'), 'G28\nG1 X10\n');
      mkdirSync(dir('a/files/tmp'), { recursive: true });
      writeFileSync(dir('a/files/tmp/123.part'), 'half');
      // Nor this node's local copy of content kept in the database (the database carries the content itself).
      mkdirSync(dir('a/files/cache'), { recursive: true });
      writeFileSync(dir('a/files/cache/ef01.gcode'), 'G28\n');

      const r = await cli(['backup', '--to', archive, '--data-dir', dir('a'), '--with-files']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Backup written: .*farm\.tar\.gz \(\d+ bytes, 3 members/);
      // The server went on answering meanwhile and still does.
      assert.equal((await callServer(server, key, 'GET', '/v1/organization')).status, 200);
    } finally {
      await server.close();
    }
    // Any tar reads it; the manifest comes last and names each member's checksum.
    const listing = execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).trim().split('\n');
    assert.deepEqual(listing, ['printfarm.sqlite', 'secret.key', 'files/ab/cd/abcd.gcode', 'manifest.json']);
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', archive, 'manifest.json'], { encoding: 'utf8' }));
    assert.equal(manifest.schema_version > 10, true);
    assert.equal(manifest.app_version, JSON.parse(readFileSync('package.json', 'utf8')).version);
    assert.match(manifest.members[2].sha256, /^[0-9a-f]{64}$/);
  });

  it('restores into an empty directory and the farm answers the old key with the same data', async () => {
    const r = await cli(['restore', archive, '--data-dir', dir('b')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Restored .* 3 members verified/);
    assert.equal(readFileSync(dir('b/files/ab/cd/abcd.gcode'), 'utf8'), 'G28\nG1 X10\n');
    assert.equal(existsSync(dir('b/files/tmp')), false);
    assert.equal(loadSecretBox(dir('b')).open(sealedKey(dir('b'), printerId), printerId), 'moonraker-secret');

    const server = await startServer(config(dir('b')), { logger: silentLogger });
    try {
      assert.equal(server.initialAdminKey, null, 'a restored farm is not a first start');
      const org = await callServer(server, key, 'GET', '/v1/organization');
      assert.equal(org.status, 200);
      assert.equal(org.body.name, 'Backed up farm');
      const printer = await callServer(server, key, 'GET', `/v1/printers/${printerId}`);
      assert.equal(printer.status, 200);
      assert.equal(printer.body.name, 'Voron');
      assert.equal(printer.body.has_api_key, true);
    } finally {
      await server.close();
    }
  });

  it('refuses a non-empty directory without --force, and replaces it with --force', async () => {
    const refused = await cli(['restore', archive, '--data-dir', dir('b')]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is not empty .*--force/);
    // A stale WAL of the farm being replaced must not be applied to the restored database.
    writeFileSync(dir('b/printfarm.sqlite-wal'), 'stale');
    const forced = await cli(['restore', archive, '--data-dir', dir('b'), '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(existsSync(dir('b/printfarm.sqlite-wal')), false);
  });

  it('refuses a damaged archive and leaves the directory as it was', async () => {
    // Flip one byte of the secret key inside the tar: the gzip stays valid, the checksum does not match.
    const tar = gunzipSync(readFileSync(archive));
    const at = tar.indexOf(Buffer.from(readFileSync(dir('a/secret.key'))));
    assert.ok(at > 0);
    tar[at] = tar[at] === 0x41 ? 0x42 : 0x41;
    writeFileSync(dir('damaged.tar.gz'), gzipSync(tar));
    const r = await cli(['restore', dir('damaged.tar.gz'), '--data-dir', dir('c')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /secret\.key: checksum mismatch/);
    assert.deepEqual(readdirSync(dir('c')).filter((f) => !f.startsWith('printfarm.')), []);

    writeFileSync(dir('truncated.tar.gz'), readFileSync(archive).subarray(0, 2000));
    const t = await cli(['restore', dir('truncated.tar.gz'), '--data-dir', dir('c')]);
    assert.equal(t.code, 1);
    assert.match(t.stderr, /not a readable printfarm backup/);
    assert.equal(existsSync(dir('c/printfarm.sqlite')), false);
  });

  it('refuses a backup of a newer schema than this program knows', async () => {
    const newer = dir('newer');
    const handle = openDatabase(path.join(newer, 'printfarm.sqlite'));
    handle.sqlite.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (999, 'from-the-future', '2030-01-01')").run();
    await handle.close();
    const b = await cli(['backup', '--to', dir('newer.tar.gz'), '--data-dir', newer]);
    assert.equal(b.code, 0, b.stderr);
    const r = await cli(['restore', dir('newer.tar.gz'), '--data-dir', dir('d')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /schema version 999, newer than this program knows/);
  });

  it('refuses to restore over a directory a server is running on', async () => {
    const server = await startServer(config(dir('e')), { logger: silentLogger });
    try {
      const r = await cli(['restore', archive, '--data-dir', dir('e'), '--force']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /in use by another printfarm process .*stop the server before restoring/);
    } finally {
      await server.close();
    }
  });
});
