// What the appliance says about itself on the LAN: its dashboard as a web site (_http._tcp, so any browser's service
// list shows it) and itself as a print farm (_printfarm._tcp), each with its version and the dashboard's path.
import { numberedName } from '../protocol/mdns-names.js';
import type { MdnsAnnouncement } from '../transport/mdns-announcer.js';

/** Where the dashboard is served. */
export const DASHBOARD_PATH = '/';

export function selfAnnouncements(port: number, hostname: string, version: string): MdnsAnnouncement[] {
  // DNS-SD instance names are at most 63 bytes; a long host name is cut, the prefix stays. Another appliance already
  // holding this name makes the announcer take "… (2)" (see mdns-announcer).
  const name = numberedName(`printfarm on ${hostname.split('.')[0]}`, 1);
  const txt = { version, path: DASHBOARD_PATH };
  return [
    { type: 'http', name, port, txt },
    { type: 'printfarm', name, port, txt },
  ];
}
