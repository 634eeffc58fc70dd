// A real SMTP server for the email tests: Debian's python3-aiosmtpd writing what it receives to a maildir, and Python's
// own email parser reading each mail back (headers, text and HTML parts), so nothing here judges our MIME by itself.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freeTcpPort } from '../helpers/free-tcp-port.js';

export const AIOSMTPD = '/usr/bin/aiosmtpd';
/** Why the SMTP tests are skipped here, or false when the server is installed. */
export const smtpSkip: string | false = existsSync(AIOSMTPD) ? false : 'python3-aiosmtpd is not installed (.ci/run installs it)';

export interface ParsedMail {
  headers: Record<string, string>;
  text: string | null;
  html: string | null;
}

export interface SmtpServer {
  port: number;
  mails(): ParsedMail[];
  close(): Promise<void>;
}

const PARSE = `
import email, email.policy, json, mailbox, sys
out = []
for key, msg in sorted(mailbox.Maildir(sys.argv[1], factory=None).items()):
    m = email.message_from_bytes(msg.as_bytes(), policy=email.policy.default)
    text = m.get_body(preferencelist=('plain',))
    html = m.get_body(preferencelist=('html',))
    out.append({'headers': {k: str(v) for k, v in m.items()}, 'text': text.get_content() if text else None, 'html': html.get_content() if html else None})
print(json.dumps(out))
`;

async function listening(port: number, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`aiosmtpd did not listen on ${port} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `atPort`: a port chosen beforehand (a server that comes up late). `extra`: more aiosmtpd options (e.g. --smtpscert/--smtpskey for TLS from the first byte). */
export async function startSmtpServer(extra: string[] = [], atPort?: number): Promise<SmtpServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'notify-maildir-'));
  const port = atPort ?? (await freeTcpPort());
  const child: ChildProcess = spawn(AIOSMTPD, ['-n', '-l', `127.0.0.1:${port}`, ...extra, '-c', 'aiosmtpd.handlers.Mailbox', path.join(dir, 'mail')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  try {
    await listening(port);
  } catch (err) {
    child.kill();
    throw new Error(`${(err as Error).message}: ${stderr}`);
  }
  return {
    port,
    mails() {
      if (!existsSync(path.join(dir, 'mail'))) return [];
      const r = spawnSync('/usr/bin/python3', ['-c', PARSE, path.join(dir, 'mail')], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`parsing the maildir failed: ${r.stderr}`);
      return JSON.parse(r.stdout) as ParsedMail[];
    },
    async close() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A key and a certificate for 127.0.0.1 made by openssl in a temp dir (the mail server's own, trusted by no CA). */
export function makeSmtpCertificate(): { dir: string; cert: string; key: string; pem: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'notify-smtp-cert-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl failed: ${r.stderr}`);
  return { dir, cert, key, pem: readFileSync(cert, 'utf8') };
}
