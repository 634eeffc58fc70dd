// The sealed HTTP Digest secret of a key that may upload from a slicer: PrusaSlicer's PrusaLink host type signs in
// with Digest (user = the key's display prefix, password = the key), which cannot be checked against the key's SHA-256.
import { digestHa1 } from '../http/middleware/digest-auth.js';
import { covers } from './scopes.js';

/** Seals and opens stored secrets (the node's SecretBox); `context` binds a sealed value to its row. */
export interface SecretSealer {
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
}

/** The scope that makes a key usable from a slicer, and so worth a Digest secret. */
export const SLICER_UPLOAD_SCOPE = 'slicer:upload';

/** The sealed HA1 for a new key, or null when its scopes do not reach slicer uploads (or no sealer was given). */
export function sealedDigestHa1(secrets: SecretSealer | undefined, keyId: string, prefix: string, key: string, scopes: readonly string[]): string | null {
  if (!secrets || !covers(scopes, SLICER_UPLOAD_SCOPE)) return null;
  return secrets.seal(digestHa1(prefix, key), `api_key_digest:${keyId}`);
}

/** The HA1 of a stored key, or null when it has none or it does not open (sealed under another node's key). */
export function openDigestHa1(secrets: SecretSealer | undefined, keyId: string, sealed: string | null): string | null {
  if (!secrets || sealed === null) return null;
  try {
    return secrets.open(sealed, `api_key_digest:${keyId}`);
  } catch {
    return null;
  }
}
