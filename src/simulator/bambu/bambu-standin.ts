// A stand-in Bambu printer in LAN mode on 127.0.0.1, built on the real parts a printer runs: Mosquitto as its TLS MQTT
// broker and vsftpd as its implicit-FTPS server (both with user bblp and the access code, a self-signed certificate
// issued to the serial), and our virtual printer behind them. Everything lives in a temp dir, removed on close.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimulatorOptions } from '../simulator-options.js';
import type { ChildServer } from './child-server.js';
import { MOSQUITTO, mosquittoBroker } from './mosquitto-broker.js';
import { makeCertificate, type StandInCertificate } from './standin-certificate.js';
import { VirtualBambu } from './virtual-bambu.js';
import { VSFTPD, vsftpdServer, vsftpdUnavailable } from './vsftpd-server.js';
import { freePort } from './wait-port.js';

export interface BambuStandInOptions {
  serial?: string;
  accessCode?: string;
  /** P1/A1 behaviour: partial reports (default false: X1, full reports). */
  partial?: boolean;
  reportMs?: number;
  /** 0 or absent: free ports. */
  mqttPort?: number;
  ftpPort?: number;
  simulator?: Partial<SimulatorOptions>;
}

export interface BambuStandIn {
  /** bambu://127.0.0.1:MQTT?serial=SERIAL&ftp_port=FTP (the api_key is the access code). */
  url: string;
  serial: string;
  accessCode: string;
  mqttPort: number;
  ftpPort: number;
  /** SHA-256 of the certificate both servers present now. */
  readonly fingerprint: string;
  sdcard: string;
  printer: VirtualBambu;
  /** The broker goes away for `ms` and comes back on the same port (every client is dropped). */
  dropBroker(ms: number): Promise<void>;
  /** A new self-signed certificate for both servers (as after a printer's reset), restarting them. */
  changeCertificate(): Promise<void>;
  close(): Promise<void>;
}

/** Why the stand-in cannot run here (a package missing, not root), or null. */
export function bambuStandInUnavailable(): string | null {
  if (!existsSync(MOSQUITTO)) return `${MOSQUITTO} is missing (apt-get install mosquitto)`;
  if (!existsSync(VSFTPD)) return `${VSFTPD} is missing (apt-get install vsftpd)`;
  return vsftpdUnavailable();
}

export async function startBambuStandIn(opts: BambuStandInOptions = {}): Promise<BambuStandIn> {
  const why = bambuStandInUnavailable();
  if (why) throw new Error(`the Bambu stand-in cannot run: ${why}`);
  const serial = opts.serial ?? '01P00A000000001';
  const accessCode = opts.accessCode ?? '12345678';
  const dir = await mkdtemp(join(tmpdir(), 'printfarm-bambu-'));
  const sdcard = join(dir, 'sdcard');
  await mkdir(sdcard);
  const mqttPort = opts.mqttPort || (await freePort());
  const ftpPort = opts.ftpPort || (await freePort());
  let generation = 0;
  let cert: StandInCertificate = await makeCertificate(dir, `printer${generation}`, serial);
  let broker: ChildServer | null = null;
  let ftp: ChildServer | null = null;
  let printer: VirtualBambu | null = null;
  const startServers = async (): Promise<void> => {
    broker = await mosquittoBroker(dir, mqttPort, cert, accessCode);
    await broker.start();
    ftp = await vsftpdServer(dir, sdcard, ftpPort, cert, accessCode);
    await ftp.start();
  };
  const stopServers = async (): Promise<void> => {
    await Promise.all([broker?.stop(), ftp?.stop()]);
  };
  try {
    await startServers();
    printer = new VirtualBambu({ brokerPort: mqttPort, serial, accessCode, sdcard, partial: opts.partial ?? false, reportMs: opts.reportMs, simulator: opts.simulator });
    await printer.start();
  } catch (err) {
    await printer?.close().catch(() => undefined);
    await stopServers();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const p = printer;
  return {
    url: `bambu://127.0.0.1:${mqttPort}?serial=${serial}&ftp_port=${ftpPort}`,
    serial,
    accessCode,
    mqttPort,
    ftpPort,
    get fingerprint() {
      return cert.fingerprint;
    },
    sdcard,
    printer: p,
    async dropBroker(ms) {
      await broker?.stop();
      await new Promise((r) => setTimeout(r, ms));
      await broker?.start();
    },
    async changeCertificate() {
      generation++;
      cert = await makeCertificate(dir, `printer${generation}`, serial);
      await stopServers();
      await startServers();
    },
    async close() {
      await p.close();
      await stopServers();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
