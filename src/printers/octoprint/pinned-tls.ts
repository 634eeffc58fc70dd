// Opens TLS sockets for HTTP requests and websockets: verified against the system CAs, or, when a fingerprint is pinned,
// accepted only if the peer certificate's SHA-256 matches (a self-signed printer certificate), before any byte is sent.
import { connect, type ConnectionOptions, type TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';

/** Marks TLS failures so the driver reports `tls_error` rather than `unreachable`. */
export class TlsPinError extends Error {
  readonly code = 'ERR_TLS_PIN_MISMATCH';
}

type Callback = (err: Error | null, socket?: Socket) => void;

/**
 * A `createConnection` for http.request / ws: the socket is handed over only after the pin check, so the API key in
 * the first request never reaches a certificate we did not pin.
 */
export function pinnedConnector(fingerprint: string): (opts: ConnectionOptions, cb: Callback) => undefined {
  return (opts, cb) => {
    const socket: TLSSocket = connect({ ...opts, rejectUnauthorized: false, servername: opts.servername ?? opts.host });
    const fail = (err: Error): void => {
      socket.destroy();
      cb(err);
    };
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      socket.off('error', fail);
      const seen = socket.getPeerCertificate().fingerprint256?.replace(/:/g, '').toUpperCase() ?? '';
      if (seen !== fingerprint) {
        fail(new TlsPinError(`the printer's certificate (SHA-256 ${seen || 'none'}) is not the pinned one`));
        return;
      }
      cb(null, socket);
    });
    return undefined;
  };
}

/** TLS error codes Node reports for certificate and handshake failures. */
export function isTlsFailure(err: unknown): boolean {
  if (err instanceof TlsPinError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL|HOSTNAME|ALTNAME|EPROTO/.test(code);
}
