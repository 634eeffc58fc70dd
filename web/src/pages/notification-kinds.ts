// The fields each notification channel kind asks for on the dashboard (settings shown back, secrets write-only), and
// how the form's text becomes the API's settings and secrets.

export type Kind = 'email' | 'ntfy' | 'discord' | 'slack' | 'telegram' | 'pushover';

export interface KindField {
  key: string;
  label: string;
  hint: string;
  secret?: boolean;
  required?: boolean;
  type?: 'text' | 'number' | 'url' | 'password';
  options?: string[];
  /** Comma-separated list sent as an array (email recipients). */
  list?: boolean;
}

export const KINDS: Array<{ kind: Kind; label: string; fields: KindField[] }> = [
  {
    kind: 'email',
    label: 'Email (SMTP)',
    fields: [
      { key: 'host', label: 'SMTP server', hint: 'e.g. smtp.example.com', required: true },
      { key: 'port', label: 'Port', hint: '587 for STARTTLS, 465 for TLS', type: 'number' },
      { key: 'security', label: 'Security', hint: 'STARTTLS refuses to send if the server cannot encrypt; none only for a relay on this machine', options: ['starttls', 'tls', 'none'] },
      { key: 'username', label: 'User name', hint: 'Leave empty if the server takes mail without signing in' },
      { key: 'password', label: 'Password', hint: 'Stored sealed, never shown again', secret: true, type: 'password' },
      { key: 'from', label: 'From', hint: 'e.g. Print farm <farm@example.com>', required: true },
      { key: 'to', label: 'To', hint: 'Addresses, separated by commas', required: true, list: true },
    ],
  },
  {
    kind: 'ntfy',
    label: 'ntfy',
    fields: [
      { key: 'server_url', label: 'Server', hint: 'Default https://ntfy.sh, or your own server', type: 'url' },
      { key: 'topic', label: 'Topic', hint: 'Letters, digits, - and _: hard to guess on a public server', required: true },
      { key: 'token', label: 'Access token', hint: 'Only for a protected topic (tk_…); stored sealed', secret: true, type: 'password' },
    ],
  },
  {
    kind: 'discord',
    label: 'Discord',
    fields: [{ key: 'webhook_url', label: 'Webhook URL', hint: 'Server settings → Integrations → Webhooks → Copy URL; stored sealed', secret: true, required: true, type: 'password' }],
  },
  {
    kind: 'slack',
    label: 'Slack',
    fields: [{ key: 'webhook_url', label: 'Incoming webhook URL', hint: 'From your Slack app’s Incoming Webhooks; stored sealed', secret: true, required: true, type: 'password' }],
  },
  {
    kind: 'telegram',
    label: 'Telegram',
    fields: [
      { key: 'chat_id', label: 'Chat id', hint: 'The user, group or channel the bot writes to', required: true },
      { key: 'bot_token', label: 'Bot token', hint: 'From @BotFather; stored sealed', secret: true, required: true, type: 'password' },
    ],
  },
  {
    kind: 'pushover',
    label: 'Pushover',
    fields: [
      { key: 'app_token', label: 'Application token', hint: 'Stored sealed', secret: true, required: true, type: 'password' },
      { key: 'user_key', label: 'User or group key', hint: 'Stored sealed', secret: true, required: true, type: 'password' },
    ],
  },
];

export const kindOf = (kind: string) => KINDS.find((k) => k.kind === kind) ?? KINDS[0]!;

/** The form's text as { settings, secrets }: empty fields left out, numbers and lists converted. */
export function toApi(kind: Kind, values: Record<string, string>): { settings: Record<string, unknown>; secrets: Record<string, string> } {
  const settings: Record<string, unknown> = {};
  const secrets: Record<string, string> = {};
  for (const f of kindOf(kind).fields) {
    const v = (values[f.key] ?? '').trim();
    if (v === '') continue;
    if (f.secret) secrets[f.key] = v;
    else if (f.list) settings[f.key] = v.split(',').map((x) => x.trim()).filter(Boolean);
    else if (f.type === 'number') settings[f.key] = Number(v);
    else settings[f.key] = v;
  }
  return { settings, secrets };
}
