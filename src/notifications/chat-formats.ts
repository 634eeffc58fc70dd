// Pure: a person message as each chat service's request (ntfy, Discord, Slack, Telegram, Pushover), in its own
// format and within its documented size limits, so a long flood is cut with "…and N more" rather than refused.
import type { ChannelKind, SecretsOf, SettingsOf } from './channel-kinds.js';
import { clip, clipBytes, fitBlocks } from './fit-text.js';
import type { MessageItem, PersonMessage } from './person-message.js';

export interface HttpRequestSpec {
  url: string;
  body: string;
  contentType: string;
  headers: Record<string, string>;
}

const lineOf = (i: MessageItem): string => `${i.headline}. ${i.detail}`;
const trimSlash = (u: string): string => u.replace(/\/+$/, '');

/** ntfy publishes JSON to the server root; the message is capped at 4096 bytes (longer becomes an attachment). */
export function ntfyRequest(m: PersonMessage, s: SettingsOf['ntfy'], secrets: SecretsOf['ntfy']): HttpRequestSpec {
  const body = {
    topic: s.topic,
    title: clip(m.title, 250),
    message: clipBytes(fitBlocks(m.items.map(lineOf), 3900), 4096),
    // 5 = max (a failed print at night must ring), 3 = default.
    priority: m.urgent ? 5 : 3,
    tags: [m.urgent ? 'warning' : 'printer'],
    ...(m.link ? { click: m.link } : {}),
  };
  return {
    url: trimSlash(s.server_url) + '/',
    body: JSON.stringify(body),
    contentType: 'application/json',
    headers: secrets.token ? { Authorization: `Bearer ${secrets.token}` } : {},
  };
}

/** Discord webhook: one embed (title ≤ 256, description ≤ 4096, whole embed ≤ 6000), red when urgent. */
export function discordRequest(m: PersonMessage, _s: SettingsOf['discord'], secrets: SecretsOf['discord']): HttpRequestSpec {
  const embed = {
    title: clip(m.title, 256),
    description: fitBlocks(m.items.map((i) => `**${i.headline}**\n${i.detail}`), 4000, '\n\n'),
    ...(m.link ? { url: m.link } : {}),
    color: m.urgent ? 0xd32f2f : 0x2e7d32,
    footer: { text: clip(`Print farm · ${m.when}`, 2048) },
  };
  // No @everyone or role pings from text in a job name.
  return { url: secrets.webhook_url, body: JSON.stringify({ embeds: [embed], allowed_mentions: { parse: [] } }), contentType: 'application/json', headers: {} };
}

const slackEscape = (t: string): string => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Slack incoming webhook: `text` as the notification fallback, blocks (header ≤ 150, section text ≤ 3000) to read. */
export function slackRequest(m: PersonMessage, _s: SettingsOf['slack'], secrets: SecretsOf['slack']): HttpRequestSpec {
  const section = fitBlocks(m.items.map((i) => `*${slackEscape(i.headline)}*\n${slackEscape(i.detail)}`), 2900, '\n\n');
  const blocks: unknown[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(m.title, 150) } },
    { type: 'section', text: { type: 'mrkdwn', text: section } },
  ];
  if (m.link) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `<${m.link}|Open the dashboard>` } });
  return { url: secrets.webhook_url, body: JSON.stringify({ text: clip(slackEscape(m.title), 3000), blocks }), contentType: 'application/json', headers: {} };
}

const htmlEscape = (t: string): string => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Telegram sendMessage with parse_mode HTML; the text is at most 4096 characters after the tags are parsed. */
export function telegramRequest(m: PersonMessage, s: SettingsOf['telegram'], secrets: SecretsOf['telegram']): HttpRequestSpec {
  const head = `<b>${htmlEscape(clip(m.title, 300))}</b>`;
  const link = m.link ? `\n\n<a href="${htmlEscape(m.link)}">Open the dashboard</a>` : '';
  // The limit counts visible characters; the escaped text is never shorter than that, so fitting it is safe.
  const room = 4000 - m.title.length - 'Open the dashboard'.length - 4;
  const body = fitBlocks(m.items.map((i) => `<b>${htmlEscape(i.headline)}</b>\n${htmlEscape(i.detail)}`), room, '\n\n');
  return {
    url: `${trimSlash(s.api_url)}/bot${secrets.bot_token}/sendMessage`,
    body: JSON.stringify({ chat_id: s.chat_id, text: `${head}\n\n${body}${link}`, parse_mode: 'HTML', link_preview_options: { is_disabled: true } }),
    contentType: 'application/json',
    headers: {},
  };
}

/** Pushover messages.json as a form: message ≤ 1024, title ≤ 250, url ≤ 512, url_title ≤ 100; priority 1 when urgent. */
export function pushoverRequest(m: PersonMessage, s: SettingsOf['pushover'], secrets: SecretsOf['pushover']): HttpRequestSpec {
  const form = new URLSearchParams({
    token: secrets.app_token,
    user: secrets.user_key,
    title: clip(m.title, 250),
    message: fitBlocks(m.items.map(lineOf), 1024),
    priority: m.urgent ? '1' : '0',
  });
  if (m.link && m.link.length <= 512) {
    form.set('url', m.link);
    form.set('url_title', 'Open the dashboard');
  }
  return { url: `${trimSlash(s.api_url)}/1/messages.json`, body: form.toString(), contentType: 'application/x-www-form-urlencoded', headers: {} };
}

type Formatter<K extends ChannelKind> = (m: PersonMessage, s: SettingsOf[K], secrets: SecretsOf[K]) => HttpRequestSpec;
export const CHAT_FORMATTERS: { [K in Exclude<ChannelKind, 'email'>]: Formatter<K> } = {
  ntfy: ntfyRequest,
  discord: discordRequest,
  slack: slackRequest,
  telegram: telegramRequest,
  pushover: pushoverRequest,
};
