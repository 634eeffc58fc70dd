// Every migration, listed statically in order (a single binary has no migrations folder to read). Append, never edit.
import type { Migration } from './migration.js';
import { migration001Platform } from './001-platform.js';
import { migration002Files } from './002-files.js';
import { migration003UserPasswords } from './003-user-passwords.js';
import { migration004Printers } from './004-printers.js';
import { migration005Webhooks } from './005-webhooks.js';
import { migration006Jobs } from './006-jobs.js';
import { migration007Materials } from './007-materials.js';
import { migration008Sessions } from './008-sessions.js';
import { migration009AnalyticsTotals } from './009-analytics-totals.js';
import { migration010FileUrlHosts } from './010-file-url-hosts.js';
import { migration011CoolOnPause } from './011-cool-on-pause.js';
import { migration012NetworkPrinters } from './012-network-printers.js';
import { migration013AnalyticsRollups } from './013-analytics-rollups.js';
import { migration014StorageReserve } from './014-storage-reserve.js';
import { migration015BackupSettings } from './015-backup-settings.js';
import { migration016FilePruning } from './016-file-pruning.js';
import { migration017Nodes } from './017-nodes.js';
import { migration018FileChunks } from './018-file-chunks.js';
import { migration019StartRefusals } from './019-start-refusals.js';
import { migration020SlicerUploads } from './020-slicer-uploads.js';
import { migration021FarmBackups } from './021-farm-backups.js';
import { migration022RollupBulkInsert } from './022-rollup-bulk-insert.js';
import { migration023Sliced3mf } from './023-sliced-3mf.js';
import { migration024NodeHolders } from './024-node-holders.js';
import { migration025PrintOptions } from './025-print-options.js';
import { migration026HomeAssistantBroker } from './026-homeassistant-broker.js';
import { migration027Notifications } from './027-notifications.js';
import { migration028Cameras } from './028-cameras.js';

export const migrations: readonly Migration[] = [
  migration001Platform,
  migration002Files,
  migration003UserPasswords,
  migration004Printers,
  migration005Webhooks,
  migration006Jobs,
  migration007Materials,
  migration008Sessions,
  migration009AnalyticsTotals,
  migration010FileUrlHosts,
  migration011CoolOnPause,
  migration012NetworkPrinters,
  migration013AnalyticsRollups,
  migration014StorageReserve,
  migration015BackupSettings,
  migration016FilePruning,
  migration017Nodes,
  migration018FileChunks,
  migration019StartRefusals,
  migration020SlicerUploads,
  migration021FarmBackups,
  migration022RollupBulkInsert,
  migration023Sliced3mf,
  migration024NodeHolders,
  migration025PrintOptions,
  migration026HomeAssistantBroker,
  migration027Notifications,
  migration028Cameras,
];
