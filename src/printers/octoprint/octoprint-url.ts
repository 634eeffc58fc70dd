// An OctoPrint connection URL (octoprint://host[:port][/path], octoprint+https://...?fingerprint=) as the driver uses
// it: the HTTP base, the push socket's address and the certificate pin (parsed by the one network URL parser).
import { badRequest } from '../../errors.js';
import { parseNetworkUrl } from '../network-url.js';

export interface OctoPrintEndpoint {
  /** `http://host:port[/path]` or its https form, no trailing slash. */
  httpBase: string;
  /** `ws://host:port[/path]/sockjs/websocket` or its `wss://` form: SockJS's raw websocket transport. */
  socketUrl: string;
  secure: boolean;
  /** SHA-256 of the pinned certificate (64 lower-case hex digits); null = verify against the system CAs. */
  fingerprint: string | null;
}

export function parseOctoPrintUrl(url: string): OctoPrintEndpoint {
  const u = parseNetworkUrl(url);
  if (u.kind !== 'octoprint') throw badRequest('an OctoPrint URL starts with octoprint:// or octoprint+https://');
  return { httpBase: u.baseUrl, socketUrl: `${u.baseUrl.replace(/^http/, 'ws')}/sockjs/websocket`, secure: u.secure, fingerprint: u.fingerprint };
}
