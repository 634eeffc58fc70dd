// Encrypts stored secrets (printer api_key) with AES-256-GCM under a key kept in the data directory (0600), never in the database.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import path from 'node:path';

/** The key file beside the database: a copy of the database alone does not reveal the secrets. */
export const SECRET_KEY_FILE = 'secret.key';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX = 'v1:';

export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`a secret key must be ${KEY_BYTES} bytes, got ${key.length}`);
    this.key = Buffer.from(key);
  }

  /**
   * A fingerprint of the key that reveals nothing of it: nodes sharing a database compare it to find out whether they
   * were started with the same key (database_identity.secret_key_check).
   */
  identityCheck(): string {
    return createHmac('sha256', this.key).update('printfarm database identity').digest('hex');
  }

  /** A key that lives only in this process (tests on an in-memory database). */
  static ephemeral(): SecretBox {
    return new SecretBox(randomBytes(KEY_BYTES));
  }

  /**
   * Seals `plain`; `context` (the owning record's id) is authenticated too, so a sealed value copied onto another row
   * does not open there.
   */
  seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
  }

  /** Opens a value sealed by seal() with the same context; throws when it was tampered with or the key differs. */
  open(sealed: string, context: string): string {
    if (!sealed.startsWith(PREFIX)) throw new Error('not a sealed value');
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new Error('sealed value is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

/** The environment variable that gives every node sharing a database the same key (it replaces the key file). */
export const SECRET_KEY_ENV = 'PRINTFARM_SECRET_KEY';

/** PRINTFARM_SECRET_KEY as a key: base64 of exactly 32 bytes, or an error saying how to make one. */
export function secretBoxFromEnv(value: string): SecretBox {
  const text = value.trim();
  const key = Buffer.from(text, 'base64');
  // Buffer.from skips characters that are not base64, so a round trip tells a real base64 text from noise.
  if (key.length !== KEY_BYTES || key.toString('base64') !== text) {
    throw new Error(`${SECRET_KEY_ENV} must be the base64 of ${KEY_BYTES} bytes (make one with: openssl rand -base64 ${KEY_BYTES}), got ${key.length} bytes`);
  }
  return new SecretBox(key);
}

/** The key of this node: PRINTFARM_SECRET_KEY when set (several nodes share it), else the data directory's key file. */
export function loadNodeSecretBox(dataDir: string, envValue: string | undefined = process.env[SECRET_KEY_ENV]): SecretBox {
  return envValue !== undefined && envValue !== '' ? secretBoxFromEnv(envValue) : loadSecretBox(dataDir);
}

/**
 * The data directory's secret key: read when present, created (random, mode 0600) on first use. An existing file with
 * looser permissions is tightened, since anyone who can read it can open every stored secret.
 */
export function loadSecretBox(dataDir: string): SecretBox {
  const file = path.join(dataDir, SECRET_KEY_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const key = randomBytes(KEY_BYTES);
    try {
      // 'wx': two processes starting at once must not overwrite each other's key.
      writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
      return new SecretBox(key);
    } catch (writeErr) {
      if ((writeErr as NodeJS.ErrnoException).code !== 'EEXIST') throw writeErr;
      text = readFileSync(file, 'utf8');
    }
  }
  chmodSync(file, 0o600);
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) {
    throw new Error(`${file} does not hold a ${KEY_BYTES}-byte base64 key; restore it from a backup (stored secrets cannot be opened without it)`);
  }
  return new SecretBox(key);
}
