// Stand-in receivers for ntfy, Discord, Slack, Telegram and Pushover on 127.0.0.1, written from each service's public
// API documentation: they check what the real service checks (shape, required fields, size limits, the token in the
// path) and answer as it does, so a message the real service would refuse fails here too.
import http from 'node:http';
import { listenOnLoopback } from '../webhooks/webhook-harness.js';

export type Service = 'ntfy' | 'discord' | 'slack' | 'telegram' | 'pushover';

export interface Received {
  service: Service;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed body: JSON, or the form's fields for Pushover. */
  body: Record<string, unknown>;
}

/** Overrides the answer to one request (429, hang); undefined: answer like the service. */
export type Fault = (r: Received, index: number) => { status: number; headers?: Record<string, string>; body?: string } | 'hang' | undefined;

export interface StandIns {
  baseUrl: string;
  received: Received[];
  /** Requests the stand-in refused because the real service would have (what it said). */
  refused: string[];
  faults: Partial<Record<Service, Fault>>;
  of(service: Service): Received[];
  close(): Promise<void>;
}

export const TELEGRAM_TOKEN = '123456:ABC-test-token';
export const PUSHOVER_APP = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
export const PUSHOVER_USER = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';

const chars = (s: unknown): number => (typeof s === 'string' ? Array.from(s).length : 0);
/** Telegram counts the text after its HTML entities are parsed: tags gone, entities one character each. */
const telegramVisible = (s: string): string => s.replace(/<[^>]+>/g, '').replace(/&(lt|gt|amp|quot);/g, 'x');
const TELEGRAM_TAGS = /<\/?(b|strong|i|em|u|ins|s|strike|del|a|code|pre|tg-spoiler|span|blockquote)(\s[^>]*)?>/g;

function check(service: Service, r: Received): string | null {
  const b = r.body;
  switch (service) {
    case 'ntfy': {
      if (typeof b.topic !== 'string' || !/^[-_A-Za-z0-9]{1,64}$/.test(b.topic)) return 'ntfy: topic missing or invalid';
      if (Buffer.byteLength(String(b.message ?? '')) > 4096) return 'ntfy: message over 4096 bytes';
      if (b.priority !== undefined && ![1, 2, 3, 4, 5].includes(b.priority as number)) return 'ntfy: priority must be 1..5';
      if (b.click !== undefined && !/^https?:\/\//.test(String(b.click))) return 'ntfy: click must be a URL';
      return null;
    }
    case 'discord': {
      const embeds = (b.embeds ?? []) as Array<Record<string, unknown>>;
      if (!b.content && embeds.length === 0) return 'discord: Cannot send an empty message (50006)';
      if (chars(b.content) > 2000) return 'discord: content over 2000';
      if (embeds.length > 10) return 'discord: over 10 embeds';
      let total = 0;
      for (const e of embeds) {
        if (chars(e.title) > 256) return 'discord: embed title over 256';
        if (chars(e.description) > 4096) return 'discord: embed description over 4096';
        const footer = (e.footer as { text?: string } | undefined)?.text;
        if (chars(footer) > 2048) return 'discord: footer over 2048';
        total += chars(e.title) + chars(e.description) + chars(footer);
      }
      if (total > 6000) return 'discord: embeds over 6000 characters in all';
      return null;
    }
    case 'slack': {
      if (!b.text && !b.blocks) return 'slack: no_text';
      for (const block of (b.blocks ?? []) as Array<{ type: string; text?: { type: string; text: string } }>) {
        if (block.type === 'header' && (block.text?.type !== 'plain_text' || chars(block.text.text) > 150)) return 'slack: invalid_blocks (header)';
        if (block.type === 'section' && chars(block.text?.text) > 3000) return 'slack: invalid_blocks (section over 3000)';
      }
      return null;
    }
    case 'telegram': {
      if (r.path !== `/bot${TELEGRAM_TOKEN}/sendMessage`) return 'telegram: 401 Unauthorized';
      if (b.chat_id === undefined || b.chat_id === '') return 'telegram: 400 chat_id is empty';
      const text = String(b.text ?? '');
      if (b.parse_mode === 'HTML' && text.replace(TELEGRAM_TAGS, '').includes('<')) return "telegram: 400 can't parse entities";
      const visible = b.parse_mode === 'HTML' ? telegramVisible(text) : text;
      if (chars(visible) === 0) return 'telegram: 400 message text is empty';
      if (chars(visible) > 4096) return 'telegram: 400 message is too long';
      return null;
    }
    case 'pushover': {
      if (b.token !== PUSHOVER_APP) return 'pushover: application token is invalid';
      if (b.user !== PUSHOVER_USER) return 'pushover: user identifier is invalid';
      if (!b.message) return 'pushover: message cannot be blank';
      if (chars(b.message) > 1024) return 'pushover: message is too long';
      if (chars(b.title) > 250) return 'pushover: title is too long';
      if (chars(b.url) > 512) return 'pushover: url is too long';
      if (chars(b.url_title) > 100) return 'pushover: url_title is too long';
      return null;
    }
  }
}

function serviceOf(path: string): Service | null {
  if (path.startsWith('/ntfy')) return 'ntfy';
  if (path.startsWith('/api/webhooks/')) return 'discord';
  if (path.startsWith('/services/')) return 'slack';
  if (path.startsWith('/bot')) return 'telegram';
  if (path === '/1/messages.json') return 'pushover';
  return null;
}

/** How each service answers a good request and a refused one (status and body as documented). */
function answer(service: Service, refusal: string | null): { status: number; body: string; type: string } {
  const json = (status: number, body: unknown) => ({ status, body: JSON.stringify(body), type: 'application/json' });
  switch (service) {
    case 'ntfy':
      return refusal ? json(400, { code: 40000, http: 400, error: refusal }) : json(200, { id: 'sPs71M8A2T', event: 'message' });
    case 'discord':
      return refusal ? json(400, { code: 50035, message: refusal }) : { status: 204, body: '', type: 'text/plain' };
    case 'slack':
      return refusal ? { status: 400, body: refusal, type: 'text/plain' } : { status: 200, body: 'ok', type: 'text/plain' };
    case 'telegram':
      return refusal
        ? json(refusal.includes('401') ? 401 : 400, { ok: false, error_code: refusal.includes('401') ? 401 : 400, description: refusal })
        : json(200, { ok: true, result: { message_id: 1 } });
    case 'pushover':
      return refusal ? json(400, { status: 0, errors: [refusal], request: 'r1' }) : json(200, { status: 1, request: 'r1' });
  }
}

export async function startStandIns(): Promise<StandIns> {
  const s: StandIns = {
    baseUrl: '',
    received: [],
    refused: [],
    faults: {},
    of: (service) => s.received.filter((r) => r.service === service),
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const service = serviceOf(path);
      if (!service || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      const form = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      let body: Record<string, unknown>;
      try {
        body = form ? Object.fromEntries(new URLSearchParams(raw)) : (JSON.parse(raw) as Record<string, unknown>);
      } catch {
        res.writeHead(400).end('body is not JSON');
        s.refused.push(`${service}: body is not JSON`);
        return;
      }
      const r: Received = { service, path, headers: req.headers, body };
      const index = s.of(service).length;
      s.received.push(r);
      const fault = s.faults[service]?.(r, index);
      if (fault === 'hang') return;
      if (fault) {
        res.writeHead(fault.status, { 'Content-Type': 'application/json', ...fault.headers }).end(fault.body ?? '');
        return;
      }
      const refusal = check(service, r);
      if (refusal) s.refused.push(refusal);
      const a = answer(service, refusal);
      res.writeHead(a.status, { 'Content-Type': a.type }).end(a.body);
    });
  });
  const { url, close } = await listenOnLoopback(server);
  s.baseUrl = url.replace(/\/hook$/, '');
  s.close = close;
  return s;
}
