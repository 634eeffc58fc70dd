// Migration: the organization's file_url_hosts, the hosts a job's file_url may be downloaded from.
import type { Migration } from './migration.js';

export const migration010FileUrlHosts: Migration = {
  version: 10,
  name: 'file-url-hosts',
  sql: `
    -- JSON array of host names, *.domain wildcards, IP addresses or CIDR ranges; '[]' allows any host whose
    -- addresses are not forbidden (link-local, multicast, broadcast, unspecified are refused whatever it says).
    ALTER TABLE organization ADD COLUMN file_url_hosts TEXT NOT NULL DEFAULT '[]';
  `,
  pg: `
    -- JSON array of host names, *.domain wildcards, IP addresses or CIDR ranges; '[]' allows any host whose
    -- addresses are not forbidden (link-local, multicast, broadcast, unspecified are refused whatever it says).
    ALTER TABLE organization ADD COLUMN file_url_hosts TEXT NOT NULL DEFAULT '[]';
  `,
};
