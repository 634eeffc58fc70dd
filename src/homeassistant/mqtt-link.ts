// The farm's one MQTT connection: last will, reconnect with back-off, retained messages kept (newest per topic) and
// sent again on every connect. It never waits for the broker: publishing while it is away costs a map write.
import { isIP } from 'node:net';
import mqtt, { type MqttClient } from 'mqtt';
import type { Logger } from '../logger.js';
import { describeTarget, type MqttTarget } from './mqtt-target.js';

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1000, maxMs: 30_000 };

export interface MqttLinkOptions {
  target: MqttTarget;
  clientId: string;
  /** Published (retained) by the broker when the connection is lost without a goodbye. */
  will: { topic: string; payload: string };
  /** PEM of the CA that signed the broker's certificate (mqtts with a private CA); the system's CAs otherwise. */
  ca?: Buffer;
  subscriptions: string[];
  onMessage: (topic: string, payload: string) => void;
  /** After each connect, before the retained messages are sent again. */
  onConnect?: () => void;
  logger: Logger;
  backoff?: Backoff;
  /** Wall clock ms, for the status people read. */
  now: () => number;
}

export interface MqttLinkStatus {
  broker: string;
  connected: boolean;
  /** ISO time of the current connection, or of the loss of the last one. */
  since: string | null;
  last_error: string | null;
  /** Messages handed to the broker since start. */
  published: number;
  /** Connection attempts since the last success (0 while connected). */
  failed_attempts: number;
}

export class MqttLink {
  private client: MqttClient | null = null;
  private readonly retained = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;
  private delayMs: number;
  private readonly backoff: Backoff;
  private readonly state: MqttLinkStatus;

  constructor(private readonly o: MqttLinkOptions) {
    this.backoff = o.backoff ?? DEFAULT_BACKOFF;
    this.delayMs = this.backoff.initialMs;
    this.state = { broker: describeTarget(o.target), connected: false, since: null, last_error: null, published: 0, failed_attempts: 0 };
  }

  status(): MqttLinkStatus {
    return { ...this.state };
  }

  /** Starts connecting in the background; a broker that is down is tried again with back-off, never thrown. */
  start(): void {
    const t = this.o.target;
    const client = mqtt.connect({
      protocol: t.tls ? 'mqtts' : 'mqtt',
      host: t.host,
      port: t.port,
      ...(t.username !== null ? { username: t.username } : {}),
      ...(t.password !== null ? { password: t.password } : {}),
      ...(this.o.ca ? { ca: this.o.ca } : {}),
      // SNI takes a host name only (an address there is refused by RFC 6066).
      ...(t.tls ? { rejectUnauthorized: true, ...(isIP(t.host) === 0 ? { servername: t.host } : {}) } : {}),
      clientId: this.o.clientId,
      protocolVersion: 4,
      clean: true,
      keepalive: 15,
      connectTimeout: 10_000,
      // Our own back-off below (mqtt.js only knows a fixed period).
      reconnectPeriod: 0,
      // Nothing is queued while away: retained state is sent again on connect, the rest is stale by then.
      queueQoSZero: false,
      will: { topic: this.o.will.topic, payload: Buffer.from(this.o.will.payload), qos: 1, retain: true },
    });
    this.client = client;
    client.on('connect', () => this.connected());
    client.on('message', (topic, payload) => this.o.onMessage(topic, payload.toString('utf8')));
    client.on('error', (err) => {
      this.state.last_error = err.message;
    });
    client.on('close', () => this.lost());
  }

  /** Keeps `payload` as the topic's retained value and sends it when connected (unchanged values are not sent twice). */
  publishRetained(topic: string, payload: string): void {
    if (this.retained.get(topic) === payload) return;
    this.retained.set(topic, payload);
    this.send(topic, payload, true);
  }

  /** Clears a retained topic (an empty retained payload), and forgets it. */
  clearRetained(topic: string): void {
    this.retained.delete(topic);
    this.send(topic, '', true);
  }

  /** A message for whoever listens now (a refused command); dropped while away. */
  publishNow(topic: string, payload: string): void {
    this.send(topic, payload, false);
  }

  /** Every retained message again (Home Assistant restarted and asks for discovery). */
  republish(): void {
    for (const [topic, payload] of this.retained) this.send(topic, payload, true);
  }

  /** Sends `goodbye` (retained) and closes; the will is not sent on a clean close. */
  async stop(goodbye?: { topic: string; payload: string }): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    if (!client) return;
    if (goodbye && client.connected) {
      await new Promise<void>((resolve) => client.publish(goodbye.topic, goodbye.payload, { qos: 1, retain: true }, () => resolve()));
    }
    await new Promise<void>((resolve) => client.end(!client.connected, {}, () => resolve()));
  }

  private send(topic: string, payload: string, retain: boolean): void {
    const client = this.client;
    if (!client || !client.connected) return;
    this.state.published += 1;
    client.publish(topic, payload, { qos: 0, retain });
  }

  private connected(): void {
    const client = this.client!;
    this.delayMs = this.backoff.initialMs;
    this.state.connected = true;
    this.state.since = new Date(this.o.now()).toISOString();
    this.state.failed_attempts = 0;
    this.state.last_error = null;
    this.o.logger.info('mqtt: connected', { broker: this.state.broker });
    client.subscribe(this.o.subscriptions, { qos: 0 }, (err) => {
      if (err) this.o.logger.warn('mqtt: could not subscribe to the command topics', { error: err });
    });
    this.o.onConnect?.();
    this.republish();
  }

  private lost(): void {
    if (this.state.connected) {
      this.state.since = new Date(this.o.now()).toISOString();
      this.o.logger.warn('mqtt: connection lost', { broker: this.state.broker, error: this.state.last_error });
    }
    this.state.connected = false;
    if (this.stopping) return;
    this.state.failed_attempts += 1;
    if (this.timer) return;
    const delay = this.delayMs;
    this.delayMs = Math.min(this.delayMs * 2, this.backoff.maxMs);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.stopping) this.client?.reconnect();
    }, delay);
    this.timer.unref();
  }
}
