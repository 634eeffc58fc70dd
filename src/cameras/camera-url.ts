// A camera address as the owner types it: http(s) only, credentials split off (to be sealed), and file_url's address rules.
import { AppError, badRequest } from '../errors.js';
import { checkUrlHost } from '../files/url-guard.js';

export const CAMERA_URL_MAX = 2000;

export interface SplitCameraUrl {
  /** The URL without user name and password: what is stored in clear and returned. */
  url: string;
  /** "user:password" (decoded) when the URL carried any, to be sealed; null when none. */
  credentials: string | null;
}

/**
 * Parses `text` for `field` and takes its credentials out. 400 for what is not an http(s) URL, 422
 * camera_url_forbidden for an address of a class never reached (link-local, cloud metadata, ...), as for file_url.
 */
export function splitCameraUrl(text: string, field: string): SplitCameraUrl {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw badRequest(`${field}: not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest(`${field}: uses ${url.protocol.replace(/:$/, '')}; a camera is reached over http or https`);
  try {
    // The same classes as file_url; LAN and loopback addresses are allowed (cameras live there). Names are checked again on connect.
    checkUrlHost(url, { resolve: async () => [], allowedHosts: [] }, `${field}: `);
  } catch (err) {
    if (err instanceof AppError) throw new AppError(422, 'camera_url_forbidden', err.message, err.details);
    throw err;
  }
  const credentials = url.username || url.password ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : null;
  url.username = '';
  url.password = '';
  return { url: url.toString(), credentials };
}
