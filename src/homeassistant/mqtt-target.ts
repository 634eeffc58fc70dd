// Pure: the `--mqtt mqtt[s]://user:pass@broker[:port]` URL checked and split into what the MQTT client needs.

export interface MqttTarget {
  tls: boolean;
  host: string;
  port: number;
  username: string | null;
  password: string | null;
}

export class MqttUrlError extends Error {}

/** The URL parsed; throws MqttUrlError with what is expected. */
export function parseMqttUrl(text: string): MqttTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new MqttUrlError('expected mqtt://user:password@host[:port] or mqtts://… for TLS');
  }
  if (url.protocol !== 'mqtt:' && url.protocol !== 'mqtts:') throw new MqttUrlError('the scheme must be mqtt:// or mqtts:// (TLS)');
  if (url.hostname === '') throw new MqttUrlError('the URL names no broker host');
  if (url.pathname !== '' && url.pathname !== '/') throw new MqttUrlError('the URL takes no path (the topics are fixed: see docs/home-assistant.md)');
  const tls = url.protocol === 'mqtts:';
  return {
    tls,
    // An IPv6 literal keeps its brackets in URL.hostname; the socket wants the bare address.
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (tls ? 8883 : 1883) : Number(url.port),
    username: url.username === '' ? null : decodeURIComponent(url.username),
    password: url.password === '' ? null : decodeURIComponent(url.password),
  };
}

/** The broker as people may read it: scheme, user, host and port, never the password. */
export function describeTarget(t: MqttTarget): string {
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return `${t.tls ? 'mqtts' : 'mqtt'}://${t.username ? `${encodeURIComponent(t.username)}@` : ''}${host}:${t.port}`;
}
