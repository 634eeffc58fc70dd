// Parses a Moonraker connection URL (moonraker://host[:port], moonraker+https://host[:port]?fingerprint=) into the
// HTTP base, the websocket address and the certificate pin.

/** Moonraker's own defaults: `port` 7125 for HTTP, `ssl_port` 7130 for HTTPS. */
export const MOONRAKER_HTTP_PORT = 7125;
export const MOONRAKER_HTTPS_PORT = 7130;

export interface MoonrakerAddress {
  /** e.g. http://printer.local:7125 (no trailing slash). */
  httpBase: string;
  /** e.g. ws://printer.local:7125/websocket. */
  wsUrl: string;
  secure: boolean;
  /** SHA-256 of the server certificate, 64 lower-case hex digits, or null when the normal chain check applies. */
  fingerprint: string | null;
}

/** Throws an Error naming the rule a bad URL breaks. */
export function parseMoonrakerUrl(raw: string): MoonrakerAddress {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`"${raw}" is not a URL (expected moonraker://host[:port])`);
  }
  const scheme = url.protocol.toLowerCase();
  if (scheme !== 'moonraker:' && scheme !== 'moonraker+https:') {
    throw new Error(`"${raw}" is not a Moonraker URL (expected moonraker:// or moonraker+https://)`);
  }
  if (url.hostname === '') throw new Error(`"${raw}" names no host`);
  if (url.username || url.password) throw new Error('a Moonraker URL carries no credentials: the api key is a setting of its own');
  if (url.pathname !== '' && url.pathname !== '/') throw new Error(`"${raw}" has a path; only host and port are used`);
  const secure = scheme === 'moonraker+https:';
  const known = new Set(secure ? ['fingerprint'] : []);
  for (const key of url.searchParams.keys()) {
    if (!known.has(key)) throw new Error(`unknown Moonraker URL option "${key}"${secure ? ' (known: fingerprint)' : ''}`);
  }
  const pin = url.searchParams.get('fingerprint');
  const fingerprint = pin === null ? null : normalizeFingerprint(pin);
  const port = url.port === '' ? (secure ? MOONRAKER_HTTPS_PORT : MOONRAKER_HTTP_PORT) : Number(url.port);
  const host = url.hostname; // IPv6 stays bracketed, as URL gives it
  return {
    httpBase: `${secure ? 'https' : 'http'}://${host}:${port}`,
    wsUrl: `${secure ? 'wss' : 'ws'}://${host}:${port}/websocket`,
    secure,
    fingerprint,
  };
}

/** A SHA-256 fingerprint as 64 lower-case hex digits; colons (as openssl prints it) and case are ignored. */
export function normalizeFingerprint(raw: string): string {
  const hex = raw.replace(/:/g, '').toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex)) {
    throw new Error('fingerprint must be a SHA-256 digest: 64 hex digits, colons optional');
  }
  return hex;
}
