// One MQTT session with a Bambu printer's broker over a pinned TLS socket: connect as bblp with the access code,
// subscribe to the report topic, publish requests. Each session is one connection; the driver opens the next one
// (pushall again) when it drops, so a refused code or a changed certificate is seen on every attempt.
import { MqttClient } from 'mqtt';
import { isTlsFailure } from '../pinned-tls.js';
import type { OfflineReason } from '../printer-state.js';
import { pinnedTlsSocket, type CertificatePin } from './bambu-tls.js';

export interface BambuMqttTarget {
  host: string;
  port: number;
  serial: string;
  accessCode: string;
  pin: CertificatePin;
  timeoutMs: number;
}

/** A failed attempt, with the offline reason it stands for. */
export class BambuLinkError extends Error {
  constructor(
    readonly reason: OfflineReason,
    message: string,
  ) {
    super(message);
  }
}

/** What a connection failure means for the owner: a refused access code, a certificate, or no printer there. */
export function linkError(err: unknown): BambuLinkError {
  if (err instanceof BambuLinkError) return err;
  const code = (err as { code?: unknown }).code;
  const message = (err as Error).message ?? String(err);
  // CONNACK 4 (bad user name or password) and 5 (not authorized): the broker refused bblp's access code.
  if (code === 4 || code === 5 || code === 134 || code === 135) return new BambuLinkError('auth_failed', `the printer refused the LAN access code (${message})`);
  if (isTlsFailure(err)) return new BambuLinkError('tls_error', message);
  return new BambuLinkError('unreachable', message);
}

export class BambuMqtt {
  private client: MqttClient | null = null;
  private closedByUs = false;

  constructor(
    private readonly t: BambuMqttTarget,
    private readonly onMessage: (msg: Record<string, unknown>) => void,
    /** The session ended (not by close()). */
    private readonly onDrop: (err: BambuLinkError) => void,
  ) {}

  /** Opens the session; rejects with a BambuLinkError. */
  async open(): Promise<void> {
    const socket = await pinnedTlsSocket(this.t.host, this.t.port, this.t.pin, this.t.timeoutMs).catch((err) => {
      throw linkError(err);
    });
    let built = false;
    const client = new MqttClient(
      () => {
        // One stream per session: a reconnect is a new session of ours (reconnectPeriod 0).
        if (built) throw new Error('no reconnect within a session');
        built = true;
        return socket;
      },
      {
        protocolVersion: 4,
        username: 'bblp',
        password: this.t.accessCode,
        clientId: `printfarm_${Math.random().toString(16).slice(2, 10)}`,
        reconnectPeriod: 0,
        connectTimeout: this.t.timeoutMs,
        keepalive: 30,
        clean: true,
      },
    );
    this.client = client;
    await new Promise<void>((resolve, reject) => {
      const fail = (err: Error): void => {
        client.removeListener('connect', ok);
        client.end(true);
        reject(linkError(err));
      };
      const ok = (): void => {
        client.removeListener('error', fail);
        resolve();
      };
      client.once('connect', ok);
      client.once('error', fail);
      client.once('close', () => fail(Object.assign(new Error('the printer closed the connection'), { code: 'ECONNRESET' })));
    });
    client.removeAllListeners('close');
    client.on('error', () => undefined);
    client.on('message', (_topic, payload) => {
      try {
        const msg = JSON.parse(payload.toString('utf8')) as unknown;
        if (typeof msg === 'object' && msg !== null) this.onMessage(msg as Record<string, unknown>);
      } catch {
        // A report that is no JSON tells nothing.
      }
    });
    client.once('close', () => {
      if (!this.closedByUs) this.onDrop(new BambuLinkError('unreachable', 'the connection to the printer\'s broker dropped'));
    });
    await client.subscribeAsync(`device/${this.t.serial}/report`, { qos: 0 });
  }

  publish(msg: Record<string, unknown>): Promise<void> {
    const c = this.client;
    if (!c?.connected) return Promise.reject(new BambuLinkError('unreachable', 'not connected to the printer'));
    return c.publishAsync(`device/${this.t.serial}/request`, JSON.stringify(msg), { qos: 1 }).then(() => undefined);
  }

  async close(): Promise<void> {
    this.closedByUs = true;
    await this.client?.endAsync(true).catch(() => undefined);
    this.client = null;
  }
}
