// The channel kinds, their settings (shown back) and secrets (sealed, never returned), in one place for the schemas,
// the formatters and the senders.

export const CHANNEL_KINDS = ['email', 'ntfy', 'discord', 'slack', 'telegram', 'pushover'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export interface EmailSettings {
  host: string;
  port: number;
  /** 'tls': TLS from the first byte (port 465); 'starttls': plain then upgraded, refused if the server cannot; 'none': local relays only. */
  security: 'tls' | 'starttls' | 'none';
  username?: string;
  /** PEM of the certificate (or its CA) to trust, for a mail server with a certificate of its own; else the system's CAs. */
  tls_ca?: string;
  from: string;
  to: string[];
}
export interface NtfySettings {
  server_url: string;
  topic: string;
}
export interface TelegramSettings {
  chat_id: string;
  /** The Bot API's address (default https://api.telegram.org); a self-hosted Bot API server or a test stand-in. */
  api_url: string;
}
export interface PushoverSettings {
  api_url: string;
}
export type NoSettings = Record<string, never>;

export interface SettingsOf {
  email: EmailSettings;
  ntfy: NtfySettings;
  discord: NoSettings;
  slack: NoSettings;
  telegram: TelegramSettings;
  pushover: PushoverSettings;
}

/** What is sealed per kind: the webhook URLs of Discord and Slack carry their token, so they are secrets too. */
export interface SecretsOf {
  email: { password?: string };
  ntfy: { token?: string };
  discord: { webhook_url: string };
  slack: { webhook_url: string };
  telegram: { bot_token: string };
  pushover: { app_token: string; user_key: string };
}

/** Defaults filled in on create when a setting is left out. */
export const SETTING_DEFAULTS: { [K in ChannelKind]: Partial<SettingsOf[K]> } = {
  email: { security: 'starttls', port: 587 },
  ntfy: { server_url: 'https://ntfy.sh' },
  discord: {},
  slack: {},
  telegram: { api_url: 'https://api.telegram.org' },
  pushover: { api_url: 'https://api.pushover.net' },
};

/** The secret fields each kind needs before it can send. */
export const REQUIRED_SECRETS: { [K in ChannelKind]: readonly string[] } = {
  email: [],
  ntfy: [],
  discord: ['webhook_url'],
  slack: ['webhook_url'],
  telegram: ['bot_token'],
  pushover: ['app_token', 'user_key'],
};
