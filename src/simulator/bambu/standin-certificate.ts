// A self-signed certificate for the Bambu stand-in, as a printer has one (issued to its serial, not its address), made
// by the openssl program into the stand-in's temp dir; its SHA-256 is what a client pins.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface StandInCertificate {
  keyPath: string;
  certPath: string;
  /** SHA-256 of the certificate, 64 lower-case hex digits. */
  fingerprint: string;
}

/**
 * A new key and certificate named `<name>.key/.crt` in `dir`, with the serial as its common name. `altName` (e.g.
 * `IP:127.0.0.1`) makes it one a verifying client accepts for that address when it trusts it as its CA.
 */
export async function makeCertificate(dir: string, name: string, serial: string, altName?: string): Promise<StandInCertificate> {
  const keyPath = join(dir, `${name}.key`);
  const certPath = join(dir, `${name}.crt`);
  const san = altName ? ['-addext', `subjectAltName=${altName}`] : [];
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '3650', '-subj', `/CN=${serial}`, ...san], { timeout: 60_000 });
  const fingerprint = new X509Certificate(await readFile(certPath)).fingerprint256.replace(/:/g, '').toLowerCase();
  return { keyPath, certPath, fingerprint };
}
