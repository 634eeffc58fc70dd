// HTTPS agents for a Moonraker: the normal certificate check, or a self-signed certificate accepted only when its SHA-256
// fingerprint matches the pin; the pin is checked before a single byte of the request (and its api key) is written.
import https from 'node:https';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';

/** Thrown when the server's certificate is not the pinned one. */
export class PinMismatchError extends Error {
  readonly code = 'ERR_FINGERPRINT_MISMATCH';
}

/** The certificate's SHA-256 as 64 lower-case hex digits (node prints it as colon-separated upper case). */
export const certFingerprint = (socket: tls.TLSSocket): string =>
  (socket.getPeerCertificate()?.fingerprint256 ?? '').replace(/:/g, '').toLowerCase();

class PinnedAgent extends https.Agent {
  constructor(private readonly pin: string) {
    // No session cache: every connection shows its certificate again and is checked again.
    super({ keepAlive: false, maxCachedSessions: 0 });
  }

  override createConnection(options: tls.ConnectionOptions, done: (err: Error | null, socket?: Duplex) => void): undefined {
    // The chain check is replaced by the pin: a self-signed certificate has no chain to check.
    const socket = tls.connect({ ...options, rejectUnauthorized: false });
    const fail = (err: Error): void => {
      socket.destroy();
      done(err);
    };
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      socket.off('error', fail);
      const seen = certFingerprint(socket);
      if (seen !== this.pin) {
        fail(new PinMismatchError(`the server's certificate (SHA-256 ${seen || 'none'}) does not match the pinned fingerprint`));
        return;
      }
      done(null, socket);
    });
    return undefined;
  }
}

/** The agent for one printer: pinned when a fingerprint is given, the default chain and host-name check otherwise. */
export function moonrakerAgent(fingerprint: string | null): https.Agent {
  return fingerprint ? new PinnedAgent(fingerprint) : new https.Agent({ keepAlive: false });
}

const TLS_CODES = new Set([
  'ERR_FINGERPRINT_MISMATCH',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'EPROTO',
]);

/** True for an error of the TLS layer (bad or mismatched certificate, a non-TLS server on an https address). */
export function isTlsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (TLS_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_'))) return true;
  return /certificate|SSL routines|wrong version number/i.test((err as Error | null)?.message ?? '');
}
