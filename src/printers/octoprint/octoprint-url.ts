// Parses `octoprint://host[:port]` and `octoprint+https://host[:port]?fingerprint=<sha256>` into the HTTP and push-socket bases.
import { badRequest } from '../../errors.js';

export interface OctoPrintEndpoint {
  /** `http://host:port` or `https://host:port`, no trailing slash. */
  httpBase: string;
  /** `ws://host:port/sockjs/websocket` or its `wss://` form: SockJS's raw websocket transport. */
  socketUrl: string;
  secure: boolean;
  /** Upper-case hex SHA-256 of the pinned certificate, colons removed; null = verify against the system CAs. */
  fingerprint: string | null;
}

/** Normalises a SHA-256 fingerprint written with or without colons, in either case. */
export function normaliseFingerprint(text: string): string {
  const hex = text.replace(/:/g, '').toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) throw badRequest('fingerprint must be the certificate\'s SHA-256 (64 hex digits, colons allowed)');
  return hex;
}

export function parseOctoPrintUrl(url: string): OctoPrintEndpoint {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest(`not an OctoPrint URL: ${url.slice(0, 100)}`);
  }
  const secure = parsed.protocol === 'octoprint+https:';
  if (!secure && parsed.protocol !== 'octoprint:') throw badRequest('an OctoPrint URL starts with octoprint:// or octoprint+https://');
  if (parsed.hostname === '') throw badRequest('the OctoPrint URL has no host');
  const fp = parsed.searchParams.get('fingerprint');
  if (fp !== null && !secure) throw badRequest('fingerprint= needs octoprint+https://');
  const hostPort = parsed.port === '' ? parsed.hostname : `${parsed.hostname}:${parsed.port}`;
  return {
    httpBase: `${secure ? 'https' : 'http'}://${hostPort}`,
    socketUrl: `${secure ? 'wss' : 'ws'}://${hostPort}/sockjs/websocket`,
    secure,
    fingerprint: fp === null ? null : normaliseFingerprint(fp),
  };
}
