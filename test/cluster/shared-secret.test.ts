// PRINTFARM_SECRET_KEY: real `printfarm serve` starts refuse a key other than the one the database was initialized
// with (fresh database, and an existing single-box database that gets its check on the first start after upgrade).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadSecretBox } from '../../src/printers/secret-box.js';
import { DATABASE_FILE, openDatabase } from '../../src/storage/db.js';
import { runCli, startServe, stop, tempDir } from '../cli/serve-harness.js';


const key = (): string => randomBytes(32).toString('base64');
const serveArgs = (dir: string): string[] => ['--data-dir', dir, '--port', '0', '--host', '127.0.0.1'];

async function refused(dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  const proc = runCli(['serve', ...serveArgs(dir)], env);
  const exit = await proc.exited;
  assert.notEqual(exit.code, 0, `serve should refuse; stdout: ${proc.stdout()}`);
  return proc.stdout() + proc.stderr();
}

async function identityCheck(dir: string): Promise<string | undefined> {
  const h = openDatabase(path.join(dir, DATABASE_FILE));
  try {
    return (await h.db.selectFrom('database_identity').select('secret_key_check').executeTakeFirst())?.secret_key_check;
  } finally {
    await h.close();
  }
}

describe('shared secret key', () => {
  it('a fresh database takes the first key; another key is refused, the same one starts', async () => {
    const dir = await tempDir();
    const k1 = key();
    await stop((await startServe(serveArgs(dir), { PRINTFARM_SECRET_KEY: k1 })).proc);
    const text = await refused(dir, { PRINTFARM_SECRET_KEY: key() });
    assert.match(text, /refusing to start/);
    assert.match(text, /same PRINTFARM_SECRET_KEY/);
    await stop((await startServe(serveArgs(dir), { PRINTFARM_SECRET_KEY: k1 })).proc);
  });

  it('an existing single-box database gets the check of its key file on the first start after upgrade', async () => {
    const dir = await tempDir();
    // A database as an older version left it: migrated, no identity row, the key file beside it.
    const fileKey = loadSecretBox(dir);
    await openDatabase(path.join(dir, DATABASE_FILE)).close();
    assert.equal(await identityCheck(dir), undefined);
    await stop((await startServe(serveArgs(dir))).proc);
    assert.equal(await identityCheck(dir), fileKey.identityCheck());
    assert.match(await refused(dir, { PRINTFARM_SECRET_KEY: key() }), /PRINTFARM_SECRET_KEY/);
    // The key file's own key given through the variable is the same key: accepted.
    const same = readFileSync(path.join(dir, 'secret.key'), 'utf8').trim();
    await stop((await startServe(serveArgs(dir), { PRINTFARM_SECRET_KEY: same })).proc);
  });

  it('a malformed PRINTFARM_SECRET_KEY is refused with how to make one', async () => {
    const dir = await tempDir();
    const text = await refused(dir, { PRINTFARM_SECRET_KEY: 'not a key' });
    assert.match(text, /PRINTFARM_SECRET_KEY must be the base64 of 32 bytes/);
    assert.match(text, /openssl rand -base64 32/);
  });
});
