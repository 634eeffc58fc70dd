// Pure: a person message as an email: subject, a plain-text part and an HTML part with the same content and the link.
import { clip } from './fit-text.js';
import type { PersonMessage } from './person-message.js';

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

const esc = (t: string): string => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function emailContent(m: PersonMessage): EmailContent {
  const subject = clip(`${m.urgent ? '[Action needed] ' : ''}${m.title}`, 200).replace(/[\r\n]+/g, ' ');
  const text = [
    ...m.items.map((i) => `${i.headline}\n${i.detail}${i.link && i.link !== m.link ? `\n${i.link}` : ''}`),
    ...(m.link ? [`Open the dashboard: ${m.link}`] : []),
  ].join('\n\n');
  const items = m.items
    .map((i) => `<li><strong>${esc(i.headline)}</strong><br>${esc(i.detail)}${i.link && i.link !== m.link ? ` <a href="${esc(i.link)}">Open</a>` : ''}</li>`)
    .join('');
  const html =
    `<!doctype html><html><body style="font-family:sans-serif">` +
    `<h2 style="color:${m.urgent ? '#b71c1c' : '#1b5e20'}">${esc(m.title)}</h2><ul>${items}</ul>` +
    (m.link ? `<p><a href="${esc(m.link)}">Open the dashboard</a></p>` : '') +
    `<p style="color:#555">Sent by your print farm at ${esc(m.when)}.</p></body></html>`;
  return { subject, text, html };
}
