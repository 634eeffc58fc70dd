// Email notifications sent with nodemailer to a real SMTP server (Debian's aiosmtpd) and parsed back by Python's email
// package: headers, the text and HTML parts, the link, per-user addresses; STARTTLS enforced; a server that refuses.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isoTime } from '../../src/clock.js';
import { freeTcpPort } from '../helpers/free-tcp-port.js';
import { bearer, type TestApp } from '../helpers/test-app.js';
import { eventually } from '../webhooks/webhook-harness.js';
import { createChannel, DASHBOARD, failedJob, getJson, notifyApp, passGroupWindow } from './notify-harness.js';
import { makeSmtpCertificate, smtpSkip, startSmtpServer } from './smtp-server.js';
import { rmSync } from 'node:fs';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

type Log = { data: Array<{ status: string; attempts: number; last_status: string | null; error: string | null }> };
const emailChannel = (port: number, extra: Record<string, unknown> = {}) => ({
  kind: 'email',
  name: 'Workshop mail',
  events: ['job.failed', 'job.completed'],
  settings: { host: '127.0.0.1', port, security: 'none', from: 'Print farm <farm@example.com>', to: ['owner@example.com'] },
  ...extra,
});
const log = (t: TestApp, key: string, id: string) => getJson<Log>(t, key, `/v1/notifications/channels/${id}/deliveries`);

describe('notifications by email (aiosmtpd)', { skip: smtpSkip }, () => {
  it('a failed job arrives as a mail with a text and an HTML part, the link, to the address and the channel user', async () => {
    const smtp = await startSmtpServer();
    open.push(smtp);
    const { t, key } = await notifyApp();
    open.push(t);
    const now = isoTime(t.clock.now());
    await t.deps.db.insertInto('users').values({ id: 'usr_mara', email: 'mara@example.com', name: 'Mara', role: 'operator', status: 'active', invite_token_hash: null, invited_by: null, created_at: now, updated_at: now }).execute();
    const id = await createChannel(t, key, emailChannel(smtp.port, { user_ids: ['usr_mara'] }));
    await t.deps.events.recordNow('job.failed', failedJob());
    passGroupWindow(t);
    await eventually(() => smtp.mails().length === 1, 'the mail at the SMTP server');
    const mail = smtp.mails()[0]!;
    assert.equal(mail.headers.From, 'Print farm <farm@example.com>');
    assert.equal(mail.headers.To, 'owner@example.com, mara@example.com');
    assert.equal(mail.headers.Subject, '[Action needed] Job “benchy-1.gcode” failed on prt_seven at 40 %');
    assert.match(mail.headers['Content-Type']!, /^multipart\/alternative/);
    const link = `${DASHBOARD}/#/printers/prt_seven`;
    assert.match(mail.text!, /Reason: thermal runaway on the hotend\./);
    assert.match(mail.text!, /requeue the job/);
    assert.ok(mail.text!.includes(`Open the dashboard: ${link}`));
    assert.match(mail.html!, /<h2[^>]*>Job “benchy-1\.gcode” failed on prt_seven at 40 %<\/h2>/);
    assert.ok(mail.html!.includes(`<a href="${link}">Open the dashboard</a>`));
    await eventually(async () => (await log(t, key, id)).data[0]!.status === 'delivered', 'logged as delivered');
    assert.equal((await log(t, key, id)).data[0]!.last_status, 'SMTP 250');
  });

  it('STARTTLS required: a server that cannot upgrade gets nothing in clear, the log says why, the mail waits', async () => {
    const smtp = await startSmtpServer();
    open.push(smtp);
    const { t, key } = await notifyApp();
    open.push(t);
    const body = emailChannel(smtp.port);
    const id = await createChannel(t, key, { ...body, settings: { ...body.settings, security: 'starttls', username: 'farm' }, secrets: { password: 'hunter2-long-enough' } });
    await t.deps.events.recordNow('job.failed', failedJob());
    passGroupWindow(t);
    await eventually(async () => (await log(t, key, id)).data[0]!.attempts === 1, 'the attempt recorded');
    const entry = (await log(t, key, id)).data[0]!;
    assert.equal(entry.status, 'pending');
    assert.match(entry.error!, /STARTTLS/i);
    assert.equal(smtp.mails().length, 0);
  });

  for (const mode of ['starttls', 'tls'] as const) {
    it(`${mode === 'tls' ? 'TLS from the first byte (SMTPS)' : 'STARTTLS'}: the server's own certificate is checked; trusted through the channel's tls_ca, the mail goes`, async () => {
      const c = makeSmtpCertificate();
      open.push({ close: async () => rmSync(c.dir, { recursive: true, force: true }) });
      const smtp = await startSmtpServer(mode === 'tls' ? ['--smtpscert', c.cert, '--smtpskey', c.key] : ['--tlscert', c.cert, '--tlskey', c.key]);
      open.push(smtp);
      const { t, key } = await notifyApp();
      open.push(t);
      const body = emailChannel(smtp.port);
      const untrusted = await createChannel(t, key, { ...body, name: 'untrusted', settings: { ...body.settings, security: mode } });
      const trusted = await createChannel(t, key, { ...body, name: 'trusted', settings: { ...body.settings, security: mode, tls_ca: c.pem } });
      await t.deps.events.recordNow('job.failed', failedJob());
      passGroupWindow(t);
      await eventually(() => smtp.mails().length === 1, 'the mail over TLS');
      assert.match(smtp.mails()[0]!.headers.Subject!, /failed on prt_seven/);
      await eventually(async () => (await log(t, key, trusted)).data[0]!.status === 'delivered', 'the trusted channel delivered');
      await eventually(async () => (await log(t, key, untrusted)).data[0]!.attempts === 1, 'the untrusted attempt recorded');
      const refused = (await log(t, key, untrusted)).data[0]!;
      assert.equal(refused.status, 'pending');
      assert.match(refused.error!, /self[- ]signed certificate/i);
    });
  }

  it('an SMTP server that refuses connections: retried, the channel says it is failing, nothing lost; sent once it is up', async () => {
    const port = await freeTcpPort();
    const { t, key } = await notifyApp();
    open.push(t);
    const id = await createChannel(t, key, emailChannel(port));
    await t.deps.events.recordNow('job.failed', failedJob());
    passGroupWindow(t);
    await eventually(async () => (await log(t, key, id)).data[0]!.attempts === 1, 'the refused attempt recorded');
    assert.match((await log(t, key, id)).data[0]!.error!, /ECONNREFUSED/);
    assert.equal((await getJson<{ status: string }>(t, key, `/v1/notifications/channels/${id}`)).status, 'failing');
    const res = await t.request(`/v1/notifications/channels/${id}/test`, { method: 'POST', headers: bearer(key) });
    assert.equal(((await res.json()) as { ok: boolean }).ok, false, 'Send test says it fails');

    const smtp = await startSmtpServer([], port);
    open.push(smtp);
    passGroupWindow(t, 60_000);
    await eventually(() => smtp.mails().length === 1, 'the mail once the server is up');
    await eventually(async () => (await log(t, key, id)).data.find((d) => d.attempts === 2)?.status === 'delivered', 'delivered on the retry');
    assert.equal((await getJson<{ status: string }>(t, key, `/v1/notifications/channels/${id}`)).status, 'ok');
  });
});
