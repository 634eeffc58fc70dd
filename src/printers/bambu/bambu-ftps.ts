// Uploads to a Bambu printer's SD card over implicit FTPS (port 990, user bblp, the access code): the control
// connection's certificate must pass the pin before the login is sent.
import type { TLSSocket } from 'node:tls';
import { Client } from 'basic-ftp';
import { linkError } from './bambu-mqtt.js';
import type { CertificatePin } from './bambu-tls.js';

export interface FtpsTarget {
  host: string;
  port: number;
  accessCode: string;
  pin: CertificatePin;
  timeoutMs: number;
}

/** Uploads `localPath` as `remoteName` at the card's root; rejects with a BambuLinkError. */
export async function uploadToPrinter(t: FtpsTarget, localPath: string, remoteName: string): Promise<void> {
  const client = new Client(t.timeoutMs);
  try {
    // The chain check is the pin's, on the control connection before USER/PASS (the data connections go to the same
    // server within this session).
    await client.connectImplicitTLS(t.host, t.port, { rejectUnauthorized: false });
    t.pin.check(client.ftp.socket as TLSSocket);
    await client.login('bblp', t.accessCode).catch((err: Error & { code?: number }) => {
      // 530: not logged in. Code 5 is how linkError knows a refused access code (MQTT's CONNACK "not authorized").
      if (err.code === 530) throw Object.assign(new Error(`the printer refused the LAN access code over FTPS (${err.message})`), { code: 5 });
      throw err;
    });
    await client.useDefaultSettings();
    await client.uploadFrom(localPath, remoteName);
  } catch (err) {
    throw linkError(err);
  } finally {
    client.close();
  }
}
