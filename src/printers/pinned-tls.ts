// TLS for network printers, one implementation for every driver: the normal certificate check, or a self-signed
// certificate accepted only when its SHA-256 matches the pinned fingerprint, checked before a single byte of a request
// (and so its credential) is written; and which errors are TLS failures (offline reason `tls_error`).
import https from 'node:https';
import type { Socket } from 'node:net';
import tls from 'node:tls';

/** The server's certificate is not the pinned one. */
export class PinMismatchError extends Error {
  readonly code = 'ERR_FINGERPRINT_MISMATCH';
}

/** A SHA-256 fingerprint as 64 lower-case hex digits, whatever its spelling (colons, case). */
export const normalizeFingerprint = (text: string): string => text.replace(/[^0-9a-f]/gi, '').toLowerCase();

type Connected = (err: Error | null, socket?: Socket) => void;

/**
 * A `createConnection` for node:http(s) requests, agents and `ws`: the socket is handed over only once the peer's
 * certificate matched the pin. The chain check is replaced by the pin: a self-signed certificate has no chain.
 */
export function pinnedConnector(fingerprint: string): (options: tls.ConnectionOptions, done: Connected) => undefined {
  const want = normalizeFingerprint(fingerprint);
  return (options, done) => {
    let settled = false;
    const finish = (err: Error | null, socket?: Socket): void => {
      if (settled) return;
      settled = true;
      done(err, socket);
    };
    const socket = tls.connect({ ...options, rejectUnauthorized: false, servername: options.servername ?? options.host });
    socket.once('error', (err) => finish(err));
    socket.once('secureConnect', () => {
      const seen = normalizeFingerprint(socket.getPeerCertificate()?.fingerprint256 ?? '');
      if (seen === want) return finish(null, socket);
      socket.destroy();
      finish(new PinMismatchError(`the printer's certificate (SHA-256 ${seen || 'none'}) does not match the pinned fingerprint`));
    });
    return undefined;
  };
}

/** An https agent for one printer: pinned when a fingerprint is given (no session cache: each connection is checked). */
export function printerHttpsAgent(fingerprint: string | null, options: https.AgentOptions = {}): https.Agent {
  if (!fingerprint) return new https.Agent(options);
  const agent = new https.Agent({ ...options, maxCachedSessions: 0 });
  (agent as unknown as { createConnection: ReturnType<typeof pinnedConnector> }).createConnection = pinnedConnector(fingerprint);
  return agent;
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET|VERIFY)_|HOSTNAME_MISMATCH|ERR_FINGERPRINT_MISMATCH|EPROTO)/;

/** An error of the TLS layer: an untrusted, expired or mismatched certificate, or no TLS server at an https address. */
export function isTlsFailure(err: unknown): boolean {
  if (err instanceof PinMismatchError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && TLS_CODES.test(code)) return true;
  return /certificate|SSL routines|wrong version number/i.test((err as Error | null)?.message ?? '');
}
