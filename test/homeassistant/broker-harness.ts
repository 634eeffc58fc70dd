// Mosquitto for the Home Assistant tests (the Bambu stand-in's broker, plain or TLS, one user with a password) and a
// watcher that reads what the farm publishes with Mosquitto's own mosquitto_sub.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MOSQUITTO, mosquittoBroker } from '../../src/simulator/bambu/mosquitto-broker.js';
import { makeCertificate, type StandInCertificate } from '../../src/simulator/bambu/standin-certificate.js';
import type { ChildServer } from '../../src/simulator/bambu/child-server.js';
import { parseMqttUrl, type MqttTarget } from '../../src/homeassistant/mqtt-target.js';
import { freeTcpPort } from '../helpers/free-tcp-port.js';

export const MOSQUITTO_SUB = '/usr/bin/mosquitto_sub';
export const MOSQUITTO_PUB = '/usr/bin/mosquitto_pub';
/** Why the broker tests cannot run here, or false (`.ci/run` installs mosquitto and mosquitto-clients). */
export const brokerMissing: string | false = !existsSync(MOSQUITTO)
  ? `${MOSQUITTO} is missing (Debian package mosquitto)`
  : !existsSync(MOSQUITTO_SUB)
    ? `${MOSQUITTO_SUB} is missing (Debian package mosquitto-clients)`
    : false;

export const USER = 'farm';
export const PASSWORD = 'p@ss word:1';

export interface TestBroker {
  port: number;
  tls: boolean;
  cert: StandInCertificate | null;
  /** What the farm gets (--mqtt and --mqtt-ca). */
  target: MqttTarget;
  ca?: Buffer;
  url: string;
  /** mosquitto_sub / mosquitto_pub arguments reaching this broker as the user. */
  clientArgs: string[];
  start(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

export async function startBroker(opts: { tls: boolean; started?: boolean }): Promise<TestBroker> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'printfarm-ha-broker-'));
  const port = await freeTcpPort();
  const cert = opts.tls ? await makeCertificate(dir, 'broker', 'test-broker', 'IP:127.0.0.1') : null;
  const server: ChildServer = await mosquittoBroker(dir, port, cert, PASSWORD, USER);
  const url = `${opts.tls ? 'mqtts' : 'mqtt'}://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`;
  const broker: TestBroker = {
    port,
    tls: opts.tls,
    cert,
    target: parseMqttUrl(url),
    ...(cert ? { ca: await readFile(cert.certPath) } : {}),
    url,
    clientArgs: ['-h', '127.0.0.1', '-p', String(port), '-u', USER, '-P', PASSWORD, ...(cert ? ['--cafile', cert.certPath] : [])],
    start: () => server.start(),
    stop: () => server.stop(),
    async close() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (opts.started !== false) await broker.start();
  return broker;
}

export interface Message {
  topic: string;
  payload: string;
  retained: boolean;
}

/** mosquitto_sub on `topics`, every message kept in order; `until` waits for one that matches. */
export class Watcher {
  readonly messages: Message[] = [];
  private readonly child: ChildProcess;
  private buffer = '';
  private stderr = '';

  constructor(broker: TestBroker, topics: string[] = ['homeassistant/#', 'printfarm/#']) {
    // -F: retained flag, topic, payload on one line (our payloads are one-line JSON or words).
    const args = [...broker.clientArgs, '-F', '%r %t %p', '-V', 'mqttv311', ...topics.flatMap((t) => ['-t', t])];
    this.child = spawn(MOSQUITTO_SUB, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (b: Buffer) => {
      this.buffer += b.toString('utf8');
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        const first = line.indexOf(' ');
        const second = line.indexOf(' ', first + 1);
        const topic = second < 0 ? line.slice(first + 1) : line.slice(first + 1, second);
        this.messages.push({ retained: line.slice(0, first) === '1', topic, payload: second < 0 ? '' : line.slice(second + 1) });
      }
    });
    this.child.stderr!.on('data', (b: Buffer) => (this.stderr += b.toString()));
  }

  /** The newest message on `topic`, or undefined. */
  last(topic: string): Message | undefined {
    for (let i = this.messages.length - 1; i >= 0; i--) if (this.messages[i]!.topic === topic) return this.messages[i];
    return undefined;
  }

  /** The newest JSON payload on `topic` parsed, or undefined. */
  json(topic: string): any {
    const m = this.last(topic);
    return m && m.payload !== '' ? JSON.parse(m.payload) : undefined;
  }

  async until(what: string, check: (w: Watcher) => boolean, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!check(this)) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; mosquitto_sub said: ${this.stderr.trim() || '(nothing)'}; last messages: ${JSON.stringify(this.messages.slice(-5))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): void {
    this.child.kill('SIGTERM');
  }
}

/** Sends one message with mosquitto_pub as the broker's user. */
export async function mosquittoPub(broker: TestBroker, topic: string, payload: string): Promise<void> {
  const child = spawn(MOSQUITTO_PUB, [...broker.clientArgs, '-V', 'mqttv311', '-t', topic, '-m', payload], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`mosquitto_pub exited ${code}: ${err}`);
}
