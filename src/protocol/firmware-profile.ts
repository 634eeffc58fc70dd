// The shape of a firmware profile (firmware-profiles/*.json): every per-family fact the protocol core needs, as data.

/** Scripts run by the session; `{X} {Y} {Z} {E} {F}` are replaced with the last position the motion tracker knows. */
export interface FirmwareScripts {
  pause: string[];
  resume: string[];
  cancel: string[];
  cooldown: string[];
}

export interface FirmwareTimeouts {
  /** Ordinary lines: how long an `ok` may take. */
  shortMs: number;
  /** Long commands (homing, heating, M400, dwell, filament change). */
  longMs: number;
  /** A busy line pushes the deadline to at least now + this. */
  busyExtendMs: number;
  /** Consecutive ok-timeouts (each followed by an M105 poke) before the link is declared broken. */
  maxConsecutive: number;
}

export interface FirmwareResendRules {
  /** Regex sources with one capture group: the requested line number (`Resend: 5`, `rs N5`). */
  patterns: string[];
  /** Whether the firmware sends an `ok` right after a resend request (to be swallowed). */
  okFollows: boolean;
  /** Regex sources with one capture group for "this line was discarded" replies (Repetier `skip 5`). */
  skipPatterns: string[];
  /** Whether an `ok` follows a skip reply (it acknowledges nothing live). */
  okFollowsSkip: boolean;
  /** Resend requests that make us write again, tolerated while no new line is acknowledged; one more stops the job. */
  stormLimit: number;
}

/** A command that ends a blocking wait at once (Marlin's M108, read by its emergency parser as the bytes arrive). */
export interface BreakWait {
  command: string;
  /** The waits it ends (Marlin: M109, M190, M191; not G4 or M400). */
  breaks: string[];
}

export interface FirmwareProfile {
  /** Identifier used in connection URLs (`?firmware=marlin`). */
  name: string;
  displayName: string;
  /** Case-insensitive regex sources matched against M115's FIRMWARE_NAME. */
  firmwareNamePatterns: string[];
  /** `xor`: `N<n> cmd*<cs>`; `none`: bare lines, no numbers, no M110, no resends (Klipper). */
  checksum: 'xor' | 'none';
  /** Which `*` the firmware takes as the checksum separator (Marlin the last, Prusa and Smoothieware the first). */
  checksumStar: 'first' | 'last';
  /** `processed`: ok when the command ran or is planned (Marlin); `received`: ok on receipt (Repetier). */
  okMeaning: 'processed' | 'received';
  /** `ping-pong` sends one line per ok (used while the firmware is unknown). */
  flowControl: 'send-ahead' | 'ping-pong';
  /**
   * What the firmware does with a line whose checksum is wrong (absent: `resend`). `silent-drop`: it discards the line
   * with no reply at all (RepRapFirmware), so a dropped line and a lost ok look the same to the host.
   */
  badLine?: 'resend' | 'silent-drop';
  /**
   * The firmware ignores an empty line (no ok), so a lone newline is safe to write when the wire is quiet with lines
   * owed (it completes a line whose newline was corrupted). Klipper and Smoothieware answer `ok` to it: not them.
   */
  blankLineIgnored?: boolean;
  /**
   * Use MeatPack (packed lines, spaces dropped) where M115 reports `Cap:MEATPACK:1` and the firmware answers the query
   * with its `[MP]` report. Absent: never.
   */
  meatpack?: boolean;
  /** Firmware serial receive buffer; unacknowledged bytes stay <= this minus one. */
  rxBufferBytes: number;
  /** Firmware command buffer slots; unacknowledged lines stay <= this. */
  commandSlots: number;
  /** Longest framed line (without the newline) the firmware accepts. */
  maxLineLength: number;
  /** Highest line number before numbering is restarted with M110 (Repetier compares 16 bits). */
  lineNumberMax: number;
  /** Sent lines kept for resend replays. */
  historySize: number;
  resend: FirmwareResendRules;
  /** How often the firmware says busy while a long command runs (0: never). */
  busyIntervalMs: number;
  timeouts: FirmwareTimeouts;
  /** Commands (first word) that get the long timeout. */
  longCommands: string[];
  /** Commands that stall serial input (EEPROM writes): sent alone, with nothing else in flight. */
  serialStallingCommands: string[];
  /**
   * Commands (first word) that block the firmware until done (heat-up waits, dwell, M400). Each is a barrier: nothing
   * after it is sent until its ok, so a pause or cancel that interrupts it finds nothing queued behind it.
   */
  blockingWaits: string[];
  /** How a blocking wait is ended early, or null when the firmware cannot (Klipper over serial). */
  breakWait: BreakWait | null;
  /** °C: on resume a heater this close to its target is set without waiting (M104/M140) rather than waited for. */
  resumeTemperatureWindow: number;
  /** Command that starts temperature autoreports, or null when the firmware cannot. */
  autoreportTemperature: string | null;
  /**
   * Regex source: the line that says the firmware is ready again after a restart, or absent. Klipper answers M115 while
   * it is still "not ready" and refuses everything else (`!! Printer is not ready`): after a reset line the session
   * waits for this one before it calls the printer idle.
   */
  readyPattern?: string | null;
  /** Regex sources: a line meaning the board has just restarted. */
  resetPatterns: string[];
  /** Regex sources: errors after which the firmware is halted. */
  fatalErrorPatterns: string[];
  /** Regex sources: errors the firmware survives (unknown command ...). */
  warningPatterns: string[];
  temperatureFormat: 'marlin' | 'reprap' | 'klipper' | 'smoothie' | 'repetier';
  /** Written raw, bypassing every queue (no N, no checksum). */
  emergencyStop: string;
  scripts: FirmwareScripts;
}
