// Row types of every table, for kysely's typed queries. One interface per table; timestamps are ISO 8601 UTC strings.
import type { Generated } from 'kysely';

export interface OrganizationTable {
  id: string;
  name: string;
  plan: 'free' | 'pro' | 'enterprise';
  rate_limit_per_hour: number;
  currency: string;
  hourly_rate: number;
  energy_cost_per_kwh: number;
  timezone: string;
  /** SQLite has no boolean: 0 or 1. */
  auto_start: number;
  /** 1: heaters off while a job is paused (resume reheats and waits). */
  cool_on_pause: Generated<number>;
  /** Extension: the most the farm may draw for heat-ups at once (W); null: no budget. */
  power_budget_watts: number | null;
  created_at: string;
  updated_at: string;
  /** JSON array of host names or patterns webhook receivers may use; empty allows any. */
  webhook_allowed_hosts: Generated<string>;
  /** JSON array of host patterns a job's file_url may be downloaded from; empty allows any (forbidden addresses aside). */
  file_url_hosts: Generated<string>;
  /** A browser session ends this many hours after sign-in (1..8760). */
  session_lifetime_hours: Generated<number>;
  /** A browser session ends after this many minutes without a request (5..525600). */
  session_idle_minutes: Generated<number>;
  /** MB kept free for the database (uploads are refused below it); null: min(200 MB, 10 % of the file system). */
  storage_reserve_mb: Generated<number | null>;
  /** The Home Assistant broker as mqtt[s]://user@host:port (migration 026); null: none. */
  mqtt_url: Generated<string | null>;
  /** Its password, sealed by the node key (printers/secret-box.ts); null: none. */
  mqtt_password: Generated<string | null>;
  /** PEM of the CA of an mqtts broker; null: the system's CAs. */
  mqtt_ca: Generated<string | null>;
  /** "HH:MM" in the organization's time zone when the nightly backup runs; null: no nightly backups. */
  backup_time: Generated<string | null>;
  /** How many nightly backups DATA_DIR/backups/ keeps (1..365). */
  backup_keep: Generated<number>;
  /** 1: nightly backups carry the stored G-code files and thumbnails too. */
  backup_with_files: Generated<number>;
  /** Days after its last use a file no active job needs is removed (default 30); null keeps files forever. */
  file_retention_days: Generated<number | null>;
  /** The most the stored files may take, in GiB; null (the default): no cap. */
  file_store_max_gb: Generated<number | null>;
}

export interface UserTable {
  id: string;
  email: string;
  name: string;
  role: 'owner' | 'admin' | 'operator' | 'viewer';
  status: 'active' | 'invited';
  invite_token_hash: string | null;
  invited_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyTable {
  id: string;
  name: string;
  /** live | test | dev: the environment the key was minted for. */
  env: string;
  /** Display prefix, e.g. "svc_live_Ab12": never enough to use the key. */
  prefix: string;
  /** Hex SHA-256 of the whole key string. */
  hash: string;
  /** JSON array of scope strings. */
  scopes: string;
  user_id: string | null;
  created_by_key_id: string | null;
  created_at: string;
  last_used_at: string | null;
  /** Set when the key was rolled: it works until then. */
  expires_at: string | null;
  revoked_at: string | null;
  /** The key that replaced this one by a roll. */
  rolled_to: string | null;
  /** Sealed HTTP Digest HA1 for slicer uploads (PrusaLink host type); null for keys that may not upload from a slicer. */
  digest_ha1: Generated<string | null>;
}

/** A browser sign-in: the cookie holds a random token, this row only its hash. */
export interface SessionTable {
  /** ses_… */
  id: string;
  /** Hex SHA-256 of the cookie token. */
  token_hash: string;
  /** Set for a password sign-in; null for a session made from an API key. */
  user_id: string | null;
  /** Set for a session made from an API key; null for a password sign-in. */
  api_key_id: string | null;
  created_at: string;
  /** Coalesced: at most a minute behind the last request. */
  last_seen_at: string;
}

export interface IdempotencyKeyTable {
  /** The API key that sent the request: idempotency keys are scoped per API key. */
  api_key_id: string;
  idem_key: string;
  /** SHA-256 of method, path and raw body. */
  fingerprint: string;
  /** Null while the first request is still running. */
  status: number | null;
  /** JSON { body, headers } of the stored response; "sealed:" + AES-GCM of it when the caller used an API key. */
  response: string | null;
  /** Unix ms; rows older than 24 h are purged. */
  created_ms: number;
  /** The node running the first request while it is in progress: another node takes the key over only once it is lost. */
  node_id: Generated<string | null>;
}

export interface UserPasswordTable {
  user_id: string;
  /** "scrypt$N=…,r=…,p=…$<salt base64>$<hash base64>": the parameters travel with the hash so they can be raised later. */
  hash: string;
  set_at: string;
}

export interface SchemaVersionTable {
  version: number;
  name: string;
  applied_at: string;
}

export interface JobTable {
  id: string;
  name: string;
  status: 'queued' | 'printing' | 'paused' | 'completed' | 'failed' | 'cancelled';
  priority: 'low' | 'normal' | 'high' | 'urgent';
  /** queue: created through the API; external: a print started on the printer itself, recorded when it ended. */
  origin: Generated<'queue' | 'external'>;
  /** The emulated host API a slicer uploaded the job through (src/slicer); null for every other job. */
  slicer_api: Generated<'octoprint' | 'prusalink' | 'moonraker' | null>;
  /** How material_used was measured (printer-state.ts UsedBasis); null before the job ran. */
  material_used_basis: Generated<'wire' | 'file_position' | 'progress_percent' | 'printer_report' | 'slice_per_tray' | null>;
  /** 0 low .. 3 urgent: sorting by priority follows urgency, not the alphabet. */
  priority_rank: number;
  /** The printer the job is pinned to (pinned = 1) or runs/ran on. */
  printer_id: string | null;
  pinned: number;
  group_name: string | null;
  file_id: string;
  file_url: string | null;
  file_name: string | null;
  estimated_duration: number | null;
  material_type: string | null;
  material_color: string | null;
  material_estimated_usage: number | null;
  nozzle_diameter: number | null;
  /** JSON array of strings. */
  tags: string;
  batch_id: string | null;
  progress: number;
  elapsed_time: number;
  waiting_reason: string | null;
  /** Words beside waiting_reason (migration 019): which printer refused the start, and why; null for most reasons. */
  waiting_detail: Generated<string | null>;
  /** JSON PrintOptions (migration 025): what the start tells printers that take options (Bambu); null: none set. */
  print_options: Generated<string | null>;
  error_code: string | null;
  error_message: string | null;
  created_by_key_id: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  updated_at: string;
  /** Grams of filament the job really used (all tools), measured on the wire; null until it ran. */
  material_used_g: number | null;
  /** JSON object {"<tool>": grams} of the same measure; null until it ran. */
  material_used: string | null;
  /** Filament + machine time + energy, in the organization's currency; null until it ran. */
  cost: number | null;
}

/** One stored G-code file; the bytes live in the file store (the data directory, a shared --files-dir or file_chunks). */
export interface FileTable {
  id: string;
  /** Hex SHA-256 of the content: a file is stored once however often it is sent. */
  sha256: string;
  size: number;
  original_name: string;
  line_count: number;
  sent_lines_total: number;
  sent_bytes_total: number;
  slicer: string | null;
  slicer_version: string | null;
  /** Seconds. */
  estimated_duration: number | null;
  filament_used_g: number | null;
  filament_used_mm: number | null;
  filament_weight_source: 'slicer' | 'computed' | null;
  filament_type: string | null;
  /** JSON array of { index, type, used_g, used_mm }. */
  extruders: string;
  nozzle_diameter: number | null;
  layer_height: number | null;
  layer_count: number | null;
  thumbnail_type: 'image/png' | 'image/jpeg' | null;
  /**
   * gcode: text a printer can be streamed; bgcode: Prusa's binary container, printed only by PrusaLink printers;
   * 3mf: a sliced 3MF (.gcode.3mf), printed only by Bambu printers of the model it was sliced for.
   */
  format: Generated<'gcode' | 'bgcode' | '3mf'>;
  /** Bambu's model code a 3MF was sliced for; null for other formats. */
  printer_model_id: Generated<string | null>;
  /** JSON array of a 3MF's plates (PlateInfo); '[]' for other formats. */
  plates: Generated<string>;
  thumbnail_width: number | null;
  thumbnail_height: number | null;
  thumbnail_size: number | null;
  created_at: string;
  /** The last upload of this content; null: created_at. */
  last_used_at: Generated<string | null>;
  /** When pruning removed the content (the row stays for the jobs that printed it); null while stored. */
  deleted_at: Generated<string | null>;
}

/** One piece (~1 MB) of a stored file's content or thumbnail when files live in the database (the database file store). */
export interface FileChunkTable {
  sha256: string;
  part: 'content' | 'thumbnail';
  /** 0, 1, 2, ... in content order; a gap or a short total is a damaged file. */
  idx: number;
  data: Buffer;
}

export interface PrinterTable {
  id: string;
  name: string;
  /** serial://, a bare /dev path, tcp:// or sim://, as given (trimmed). */
  connection_url: string;
  /** The printer interface's credential, AES-256-GCM sealed under the data directory's secret key; null when none. */
  api_key_sealed: string | null;
  model: string | null;
  group_name: string | null;
  /** JSON array of tag strings. */
  tags: string;
  /** 0 while the bed waits to be cleared after a print; survives restarts. */
  ready: number;
  /** Last FIRMWARE_NAME reported by M115, kept so an offline printer still shows it. */
  firmware: string | null;
  material_type: string | null;
  material_color: string | null;
  nozzle_diameter: number | null;
  heatup_watts: number | null;
  power_watts: number | null;
  clear_bed_gcode: string | null;
  clear_bed_temperature: number | null;
  created_at: string;
  updated_at: string;
  /** The node that opens this printer's connection (migration 017); null on a farm upgraded from one box until a node takes it. */
  node_id: Generated<string | null>;
  /** Job starts refused in a row (migration 019); a start that goes through resets it. */
  start_refusals: Generated<number>;
  /** The printer's words for the last refused start. */
  start_refused_message: Generated<string | null>;
  /** When the refusals reached the limit: the printer takes no job until it changes or is retried; null: not held. */
  start_refused_since: Generated<string | null>;
}

/** A printer's camera (migration 028). Booleans are 0 or 1. */
export interface CameraTable {
  id: string;
  printer_id: string;
  name: string;
  source: 'url' | 'moonraker' | 'octoprint' | 'usb';
  /** Without credentials; those are sealed apart. */
  stream_url: string | null;
  snapshot_url: string | null;
  stream_credentials_sealed: string | null;
  snapshot_credentials_sealed: string | null;
  rotation: number;
  flip_horizontal: number;
  flip_vertical: number;
  refresh_seconds: number;
  enabled: number;
  job_pictures: number;
  job_picture_step: number | null;
  created_at: string;
  updated_at: string;
}

/** A picture taken of a job (migration 028), the JPEG in `data`. */
export interface JobSnapshotTable {
  id: string;
  job_id: string;
  camera_id: string;
  moment: 'start' | 'progress' | 'completed' | 'failed' | 'cancelled';
  progress: number | null;
  size: number;
  data: Buffer;
  taken_at: string;
}

/** One appliance sharing the database (migration 017). */
export interface NodeTable {
  id: string;
  name: string;
  /** Base URL other nodes forward printer actions to; null: not reachable from other nodes. */
  address: string | null;
  version: string;
  started_at: string;
  /** The node's own clock at its last heartbeat. */
  last_seen_at: string;
  /** Heartbeats so far: others judge liveness by seeing it change, on their own monotonic clock. */
  beats: Generated<number>;
  state: Generated<'online' | 'lost' | 'stopped'>;
  updated_at: string;
}

/** The single row of facts shared by every node of a database (migration 017). */
export interface DatabaseIdentityTable {
  id: number;
  /** HMAC of a fixed text under PRINTFARM_SECRET_KEY. */
  secret_key_check: string;
  created_by_node: string | null;
  created_at: string;
}

export interface EventTable {
  /** Commit order of the log; generated. */
  seq: Generated<number>;
  /** evt_…, the id receivers de-duplicate by. */
  id: string;
  type: string;
  created_at: string;
  created_ms: number;
  /** The JSON event object exactly as sent: { id, type, created_at, data: { object } }. */
  body: string;
}

export interface WebhookTable {
  id: string;
  url: string;
  /** JSON array of event names and wildcards. */
  events: string;
  secret: string;
  /** The secret before the last rotation; still signs until previous_secret_until_ms. */
  previous_secret: string | null;
  previous_secret_until_ms: number | null;
  enabled: number;
  /** The per-webhook sequence number of its newest delivery. */
  last_seq: number;
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveryTable {
  id: string;
  webhook_id: string;
  event_seq: number;
  /** Per-webhook sequence number, so a receiver can reorder. */
  seq: number;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** Unix ms of the next attempt while pending; null once final. */
  next_attempt_ms: number | null;
  last_status_code: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  /** At most 1 KB of the receiver's last response body. */
  response_excerpt: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
  /** The node holding the lease in next_attempt_ms while its attempt is in flight (PostgreSQL); null otherwise. */
  leased_by: Generated<string | null>;
}

export interface MaterialTable {
  id: string;
  type: string;
  brand: string | null;
  color: string | null;
  /** Grams of filament on a full spool. */
  spool_weight: number;
  remaining_weight: number;
  /** Grams of the empty spool, for weigh-ins. */
  empty_spool_weight: number | null;
  cost_per_kg: number | null;
  /** mm. */
  diameter: number;
  /** g/cm³. */
  density: number;
  printer_id: string | null;
  tool: number;
  reorder_threshold: number | null;
  status: 'active' | 'empty' | 'archived';
  low_notified: number;
  lot: string | null;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

export interface JobMaterialUsageTable {
  job_id: string;
  tool: number;
  material_id: string | null;
  type: string | null;
  color: string | null;
  grams: number;
  cost: number | null;
}

// Analytics roll-ups (migration 013): kept by triggers, read by src/analytics/rollups.repository.ts. Keys are UTC text
// prefixes (day 'YYYY-MM-DD', hour 'YYYY-MM-DDTHH'); printer_id '' is no printer, '*' the whole farm (hour tables);
// type / color / material_id are json_quote()d texts ('null' for NULL).
export interface AnalyticsDayTable {
  day: string;
  printer_id: string;
  ended_seconds: number;
  ended_watt_seconds: number;
  ended_grams: number;
  ended_cost: number;
  started_n: number;
  wait_sum: number;
  wait_max: number | null;
  created_n: number;
  completed_n: number;
  failed_n: number;
  cancelled_n: number;
  completed_seconds: number;
  completed_watt_seconds: number;
  completed_cost: number;
  completed_min: number | null;
  completed_max: number | null;
}

export interface AnalyticsDayFailureTable {
  day: string;
  printer_id: string;
  code: string;
  n: number;
}

export interface AnalyticsDayMaterialTable {
  day: string;
  printer_id: string;
  type: string;
  color: string;
  material_id: string;
  lines: number;
  grams: number;
  cost: number;
}

export interface AnalyticsHourTable {
  hour: string;
  printer_id: string;
  print_seconds: number;
  completed_n: number;
  failed_n: number;
  cancelled_n: number;
}

export interface AnalyticsHourMaterialTable {
  hour: string;
  printer_id: string;
  type: string;
  grams: number;
  cost: number;
}

/** A night's backup on a farm sharing the database: claimed by one node (the row's insert), finished when written. */
export interface NightlyBackupRunTable {
  /** The organization's local day (YYYY-MM-DD). */
  day: string;
  node_id: string;
  started_at: string;
  finished_at: string | null;
  /** The archive, in the data directory of node_id. */
  file: string | null;
  bytes: number | null;
}

/** A way to reach people (migration 026); settings JSON by kind, secrets sealed, the rule in `events`. */
export interface NotificationChannelTable {
  id: string;
  kind: 'email' | 'ntfy' | 'discord' | 'slack' | 'telegram' | 'pushover';
  name: string;
  settings: string;
  secret_sealed: string | null;
  events: string;
  user_ids: Generated<string>;
  quiet_start_min: number | null;
  quiet_end_min: number | null;
  enabled: number;
  paused_reason: string | null;
  failures_in_a_row: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** One message to a channel: the events it groups (a flood, a digest), its state and last attempt. */
export interface NotificationDeliveryTable {
  id: string;
  channel_id: string;
  event_seqs: string;
  mode: 'now' | 'digest' | 'test';
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_ms: number | null;
  leased_by: string | null;
  title: string | null;
  last_status: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

export interface NotificationSettingsTable {
  id: string;
  dashboard_url: string | null;
  updated_at: string;
}

export interface Database {
  organization: OrganizationTable;
  users: UserTable;
  user_passwords: UserPasswordTable;
  api_keys: ApiKeyTable;
  sessions: SessionTable;
  idempotency_keys: IdempotencyKeyTable;
  schema_version: SchemaVersionTable;
  jobs: JobTable;
  files: FileTable;
  printers: PrinterTable;
  cameras: CameraTable;
  job_snapshots: JobSnapshotTable;
  materials: MaterialTable;
  job_material_usage: JobMaterialUsageTable;
  events: EventTable;
  webhooks: WebhookTable;
  webhook_deliveries: WebhookDeliveryTable;
  analytics_day: AnalyticsDayTable;
  analytics_day_failure: AnalyticsDayFailureTable;
  analytics_day_material: AnalyticsDayMaterialTable;
  analytics_hour: AnalyticsHourTable;
  analytics_hour_material: AnalyticsHourMaterialTable;
  analytics_long_jobs: { job_id: string };
  analytics_backward_jobs: { job_id: string };
  nodes: NodeTable;
  database_identity: DatabaseIdentityTable;
  file_chunks: FileChunkTable;
  nightly_backup_runs: NightlyBackupRunTable;
  notification_channels: NotificationChannelTable;
  notification_deliveries: NotificationDeliveryTable;
  notification_settings: NotificationSettingsTable;
}
