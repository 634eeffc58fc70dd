// The manifest.json that ends every backup archive: what wrote it, the schema version, and each member's size and SHA-256.
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export const MANIFEST_PATH = 'manifest.json';
export const BACKUP_FORMAT = 'printfarm-backup';
export const BACKUP_FORMAT_VERSION = 1;

const Member = Type.Object({
  path: Type.String({ minLength: 1 }),
  size: Type.Integer({ minimum: 0 }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
});

export const BackupManifest = Type.Object({
  format: Type.Literal(BACKUP_FORMAT),
  format_version: Type.Integer({ minimum: 1 }),
  app_version: Type.String(),
  /** The schema version of the database in the archive (its highest schema_version row). */
  schema_version: Type.Integer({ minimum: 0 }),
  created_at: Type.String(),
  /** Why it was taken: manual (the CLI), nightly, or pre-migration. */
  reason: Type.String(),
  with_files: Type.Boolean(),
  members: Type.Array(Member),
});
export type BackupManifest = Static<typeof BackupManifest>;

export class BackupInvalidError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupInvalidError';
  }
}

export function encodeManifest(manifest: BackupManifest): Buffer {
  return Buffer.from(JSON.stringify(manifest, null, 2) + '\n', 'utf8');
}

/** Parses and checks a manifest; a newer format than this program writes is refused with a clear reason. */
export function decodeManifest(bytes: Buffer): BackupManifest {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new BackupInvalidError(`${MANIFEST_PATH} is not JSON`);
  }
  if (!Value.Check(BackupManifest, value)) {
    const first = [...Value.Errors(BackupManifest, value)][0];
    throw new BackupInvalidError(`${MANIFEST_PATH} is not a printfarm backup manifest (${first ? `${first.path || '/'}: ${first.message}` : 'invalid'})`);
  }
  if (value.format_version > BACKUP_FORMAT_VERSION) {
    throw new BackupInvalidError(`the backup has format version ${value.format_version}, newer than this program reads (${BACKUP_FORMAT_VERSION})`);
  }
  return value;
}

/** Every difference between what the manifest lists and what the archive held, as readable lines (empty: they agree). */
export function compareMembers(manifest: BackupManifest, found: ReadonlyArray<{ path: string; size: number; sha256: string }>): string[] {
  const problems: string[] = [];
  const byPath = new Map(found.map((m) => [m.path, m]));
  for (const listed of manifest.members) {
    const got = byPath.get(listed.path);
    if (!got) problems.push(`${listed.path}: listed in the manifest but missing from the archive`);
    else if (got.size !== listed.size) problems.push(`${listed.path}: ${got.size} bytes, the manifest says ${listed.size}`);
    else if (got.sha256 !== listed.sha256) problems.push(`${listed.path}: checksum mismatch (the content was changed or damaged)`);
    byPath.delete(listed.path);
  }
  for (const extra of byPath.keys()) problems.push(`${extra}: in the archive but not listed in the manifest`);
  return problems;
}
