// The TLS connection to a Bambu printer (MQTT on 8883, FTPS on 990): its certificate is self-signed and issued to the
// serial, so it is pinned by SHA-256, on first contact when the URL names no fingerprint. The check runs before a
// byte of ours (the access code) is written; a certificate that differs from the pin is a TLS failure (`tls_error`).
import tls from 'node:tls';
import { normalizeFingerprint, PinMismatchError } from '../pinned-tls.js';

/** The pin a link holds: from the URL, or the certificate first seen (and kept for the life of the link). */
export class CertificatePin {
  constructor(
    private value: string | null,
    /** Told once, when the first contact pinned a certificate (the owner is shown it, to put in the URL). */
    private readonly firstSeen: (fingerprint: string) => void,
  ) {}

  /** The certificate the printer presented last time it was not the pinned one; null once a contact matched again. */
  presented: string | null = null;

  get fingerprint(): string | null {
    return this.value;
  }

  /** Accepts the peer's certificate, pinning it when nothing was pinned yet; throws when it differs from the pin. */
  check(socket: tls.TLSSocket): void {
    const seen = normalizeFingerprint(socket.getPeerCertificate()?.fingerprint256 ?? '');
    if (this.value === null) {
      if (!seen) throw new PinMismatchError('the printer presented no certificate');
      this.value = seen;
      this.firstSeen(seen);
      return;
    }
    this.presented = seen === this.value ? null : seen || null;
    if (seen !== this.value) throw new PinMismatchError(`the printer's certificate (SHA-256 ${seen || 'none'}) is not the pinned one (${this.value}): it changed`);
  }
}

/** A TLS socket to host:port, handed over only once its certificate passed the pin. */
export function pinnedTlsSocket(host: string, port: number, pin: CertificatePin, timeoutMs: number): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    // The chain check is replaced by the pin (a self-signed certificate has no chain): never off without it.
    const socket = tls.connect({ host, port, rejectUnauthorized: false, servername: host.match(/^[\d.:]+$/) ? undefined : host });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`no TLS answer from ${host}:${port} within ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      try {
        pin.check(socket);
      } catch (err) {
        socket.destroy();
        reject(err);
        return;
      }
      socket.removeAllListeners('error');
      resolve(socket);
    });
  });
}
