// Notifications to ntfy, Discord, Slack, Telegram and Pushover stand-ins (written from their API docs): each service's
// format and limits, flood grouping, 429 Retry-After, a hanging service, pausing a failing channel, Send test, secrets.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, type TestApp } from '../helpers/test-app.js';
import { eventually } from '../webhooks/webhook-harness.js';
import { startStandIns, type Service, type StandIns } from './service-stand-ins.js';
import { channelBody, createChannel, DASHBOARD, failedJob, getJson, notifyApp, passGroupWindow } from './notify-harness.js';

const SERVICES: Service[] = ['ntfy', 'discord', 'slack', 'telegram', 'pushover'];
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

async function setup(): Promise<{ t: TestApp; key: string; s: StandIns; ids: Record<Service, string> }> {
  const s = await startStandIns();
  open.push(s);
  const { t, key } = await notifyApp();
  open.push(t);
  const ids = {} as Record<Service, string>;
  for (const service of SERVICES) ids[service] = await createChannel(t, key, channelBody(service, s));
  return { t, key, s, ids };
}

type Log = { data: Array<{ status: string; events: number; title: string | null; attempts: number; last_status: string | null; error: string | null; next_attempt_at: string | null }> };
type Channel = { status: string; paused_reason: string | null; secrets_set: string[]; settings: Record<string, unknown> };

describe('notifications: each service in its own format', () => {
  it('a failed job reaches all five services, written for a person, with the link, within each documented limit', async () => {
    const { t, s } = await setup();
    await t.deps.events.recordNow('job.failed', failedJob());
    passGroupWindow(t);
    await eventually(() => SERVICES.every((x) => s.of(x).length === 1), 'one message per service');
    assert.deepEqual(s.refused, []);
    const link = `${DASHBOARD}/#/printers/prt_seven`;

    const ntfy = s.of('ntfy')[0]!.body;
    assert.equal(ntfy.topic, 'farm-alerts');
    assert.equal(ntfy.priority, 5, 'a failed print is urgent');
    assert.equal(ntfy.click, link);
    assert.match(String(ntfy.title), /Job “benchy-1\.gcode” failed on prt_seven at 40 %/);
    assert.match(String(ntfy.message), /thermal runaway on the hotend.*requeue/s);

    const discord = s.of('discord')[0]!.body as { embeds: Array<Record<string, unknown>>; allowed_mentions: unknown };
    assert.equal(discord.embeds.length, 1);
    assert.equal(discord.embeds[0]!.url, link);
    assert.match(String(discord.embeds[0]!.description), /thermal runaway/);
    assert.deepEqual(discord.allowed_mentions, { parse: [] }, 'no @everyone from a job name');

    const slack = s.of('slack')[0]!.body as { text: string; blocks: Array<{ type: string; text: { text: string } }> };
    assert.match(slack.text, /failed/);
    assert.equal(slack.blocks[0]!.type, 'header');
    assert.ok(slack.blocks.some((b) => b.text.text === `<${link}|Open the dashboard>`));

    const telegram = s.of('telegram')[0]!;
    assert.equal(telegram.body.chat_id, '-1001234');
    assert.equal(telegram.body.parse_mode, 'HTML');
    assert.match(String(telegram.body.text), new RegExp(`<a href="${link.replace(/[/.]/g, '\\$&')}">Open the dashboard</a>`));

    const pushover = s.of('pushover')[0]!;
    assert.equal(pushover.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(pushover.body.priority, '1');
    assert.equal(pushover.body.url, link);
    assert.match(String(pushover.body.message), /40 %/);
  });

  it('a flood of 50 printers going offline at once is one message per channel, cut to each limit', async () => {
    const { t, key, s, ids } = await setup();
    for (let i = 1; i <= 50; i++) {
      await t.deps.events.recordNow('printer.offline', { id: `prt_${i}`, name: `Printer ${i} with a rather long name to fill the limits`, offline_reason: 'link lost: no answer for 10 s (power cut?)' });
    }
    passGroupWindow(t);
    await eventually(() => SERVICES.every((x) => s.of(x).length === 1), 'one message per service');
    // Nothing more comes: the 50 events were one message.
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(SERVICES.map((x) => s.of(x).length), [1, 1, 1, 1, 1]);
    assert.deepEqual(s.refused, [], 'every message within the service limits');
    assert.match(String(s.of('ntfy')[0]!.body.title), /50 printers offline/);
    assert.match(String(s.of('pushover')[0]!.body.message), /and \d+ more: see the dashboard/);
    const log = await getJson<Log>(t, key, `/v1/notifications/channels/${ids.discord}/deliveries`);
    assert.equal(log.data.length, 1);
    assert.equal(log.data[0]!.events, 50);
    assert.equal(log.data[0]!.status, 'delivered');
  });
});

describe('notifications: faults', () => {
  it('429 with Retry-After: waits that long, then delivers; not counted as a failure; the others are not held up', async () => {
    const { t, key, s, ids } = await setup();
    s.faults.discord = (_r, i) => (i === 0 ? { status: 429, headers: { 'Retry-After': '120' }, body: '{"message":"You are being rate limited.","retry_after":120}' } : undefined);
    await t.deps.events.recordNow('job.failed', failedJob());
    passGroupWindow(t);
    await eventually(() => SERVICES.every((x) => s.of(x).length === 1), 'every service tried once');
    await eventually(async () => (await getJson<Log>(t, key, `/v1/notifications/channels/${ids.discord}/deliveries`)).data[0]!.last_status === 'HTTP 429', 'the 429 recorded');
    const log = (await getJson<Log>(t, key, `/v1/notifications/channels/${ids.discord}/deliveries`)).data[0]!;
    assert.equal(log.status, 'pending');
    assert.equal(Date.parse(log.next_attempt_at!) - t.clock.now(), 120_000, 'the next attempt waits Retry-After, not the 30 s back-off');
    assert.equal((await getJson<Channel>(t, key, `/v1/notifications/channels/${ids.discord}`)).status, 'ok');
    t.clock.advance(119_000);
    t.deps.notifications.worker.wake();
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(s.of('discord').length, 1, 'not before Retry-After');
    passGroupWindow(t, 1000);
    await eventually(() => s.of('discord').length === 2, 'the retry after Retry-After');
    await eventually(async () => (await getJson<Log>(t, key, `/v1/notifications/channels/${ids.discord}/deliveries`)).data[0]!.status === 'delivered', 'delivered');
  });

  it('a service that hangs holds only its own channel: the others deliver at once, it is retried, its status says why', async () => {
    const { t, key, s, ids } = await setup();
    s.faults.telegram = () => 'hang';
    await t.deps.events.recordNow('job.failed', failedJob());
    passGroupWindow(t);
    // Functional deadline: well under the 1.5 s the hanging attempt takes to time out.
    await eventually(() => ['ntfy', 'discord', 'slack', 'pushover'].every((x) => s.of(x as Service).length === 1), 'the other four', 1200);
    await eventually(async () => (await getJson<Log>(t, key, `/v1/notifications/channels/${ids.telegram}/deliveries`)).data[0]!.attempts === 1, 'the timed-out attempt recorded');
    const log = (await getJson<Log>(t, key, `/v1/notifications/channels/${ids.telegram}/deliveries`)).data[0]!;
    assert.equal(log.status, 'pending', 'kept for a retry, not lost');
    assert.match(log.error!, /no complete answer within 1\.5 s/);
    assert.equal((await getJson<Channel>(t, key, `/v1/notifications/channels/${ids.telegram}`)).status, 'failing');
    s.faults.telegram = undefined;
    passGroupWindow(t, 60_000);
    await eventually(async () => (await getJson<Log>(t, key, `/v1/notifications/channels/${ids.telegram}/deliveries`)).data[0]!.status === 'delivered', 'delivered on retry');
  });

  it('a channel that keeps failing is paused with the reason; its messages wait; resuming sends them', async () => {
    const { t, key, s, ids } = await setup();
    s.faults.pushover = () => ({ status: 503, body: 'down for maintenance' });
    await t.deps.events.recordNow('job.failed', failedJob());
    passGroupWindow(t);
    const attempts = async () => (await getJson<Log>(t, key, `/v1/notifications/channels/${ids.pushover}/deliveries`)).data[0]?.attempts ?? 0;
    for (let k = 1; k <= 5; k++) {
      await eventually(async () => (await attempts()) === k, `attempt ${k} recorded`);
      // The back-off is at most 1 h this early: the next attempt is due.
      if (k < 5) passGroupWindow(t, 3_600_000);
    }
    const ch = await getJson<Channel>(t, key, `/v1/notifications/channels/${ids.pushover}`);
    assert.equal(ch.status, 'paused');
    assert.match(ch.paused_reason!, /5 attempts in a row failed, the last: pushover answered 503: down for maintenance/);
    const tries = s.of('pushover').length;
    assert.equal(tries, 5);
    passGroupWindow(t, 3_600_000);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(s.of('pushover').length, 5, 'a paused channel sends nothing');
    assert.equal((await getJson<Log>(t, key, `/v1/notifications/channels/${ids.pushover}/deliveries`)).data[0]!.status, 'pending', 'nothing lost');

    s.faults.pushover = undefined;
    const res = await t.request(`/v1/notifications/channels/${ids.pushover}`, { method: 'PATCH', headers: bearer(key, true), body: JSON.stringify({ paused: false }) });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as Channel).status, 'ok');
    passGroupWindow(t, 3_600_000);
    await eventually(async () => (await getJson<Log>(t, key, `/v1/notifications/channels/${ids.pushover}/deliveries`)).data[0]!.status === 'delivered', 'sent after the resume');
  });

  it('a refused token pauses the channel at once and says so', async () => {
    const s = await startStandIns();
    open.push(s);
    const { t, key } = await notifyApp();
    open.push(t);
    const body = channelBody('telegram', s);
    const id = await createChannel(t, key, { ...body, secrets: { bot_token: '999:wrong' } });
    await t.deps.events.recordNow('job.failed', failedJob());
    passGroupWindow(t);
    await eventually(async () => (await getJson<Channel>(t, key, `/v1/notifications/channels/${id}`)).status === 'paused', 'paused');
    const ch = await getJson<Channel>(t, key, `/v1/notifications/channels/${id}`);
    assert.equal(ch.paused_reason, "the service refused: telegram answered 401: telegram: 401 Unauthorized", "the service's own words, not its JSON");
    assert.equal((await getJson<Log>(t, key, `/v1/notifications/channels/${id}/deliveries`)).data[0]!.status, 'pending');
  });
});

describe('notifications: channels', () => {
  it('quiet hours: urgent events still go at once, the rest wait and go out as one digest when the hours end', async () => {
    const s = await startStandIns();
    open.push(s);
    const { t, key } = await notifyApp();
    open.push(t);
    // The manual clock starts at 00:00 UTC, the organization's time zone: inside 22:00-07:00.
    const id = await createChannel(t, key, channelBody('ntfy', s, ['*'], { quiet_hours: { start: '22:00', end: '07:00' } }));
    assert.deepEqual((await getJson<{ quiet_hours: unknown }>(t, key, `/v1/notifications/channels/${id}`)).quiet_hours, { start: '22:00', end: '07:00' });
    await t.deps.events.recordNow('job.completed', { id: 'job_a', name: 'bracket.gcode', printer_id: 'prt_1', status: 'completed' });
    await t.deps.events.recordNow('material.low', { id: 'mat_1', brand: 'Prusament', type: 'PETG', color: 'orange', remaining_weight: 80 });
    await t.deps.events.recordNow('job.failed', failedJob());
    passGroupWindow(t);
    await eventually(() => s.of('ntfy').length === 1, 'the urgent message');
    assert.match(String(s.of('ntfy')[0]!.body.title), /failed/);
    passGroupWindow(t, 3 * 3_600_000);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(s.of('ntfy').length, 1, 'the rest waits for the end of the quiet hours');
    t.clock.set(Date.UTC(2026, 0, 1, 7, 0));
    t.deps.notifications.worker.wake();
    await eventually(() => s.of('ntfy').length === 2, 'the digest at 07:00');
    const digest = s.of('ntfy')[1]!.body;
    assert.equal(digest.title, 'Digest: 1 job finished, 1 spool low');
    assert.equal(digest.priority, 3);
    assert.match(String(digest.message), /bracket\.gcode.*Prusament PETG orange \(80 g left\)/s);
  });

  it('Send test reports what each service said and is logged', async () => {
    const { t, key, s, ids } = await setup();
    for (const service of SERVICES) {
      const res = await t.request(`/v1/notifications/channels/${ids[service]}/test`, { method: 'POST', headers: bearer(key) });
      assert.equal(res.status, 200);
      const r = (await res.json()) as { ok: boolean; status: string };
      assert.equal(r.ok, true, `${service}: ${JSON.stringify(r)}`);
    }
    assert.deepEqual(s.refused, []);
    assert.match(String(s.of('ntfy')[0]!.body.title), /Test message/);
    // The log is newest first by creation time: the failed test comes a second later.
    t.clock.advance(1000);
    s.faults.slack = () => ({ status: 500, body: 'internal' });
    const bad = (await (await t.request(`/v1/notifications/channels/${ids.slack}/test`, { method: 'POST', headers: bearer(key) })).json()) as { ok: boolean; error: string };
    assert.equal(bad.ok, false);
    assert.match(bad.error, /slack answered 500/);
    assert.equal((await getJson<Channel>(t, key, `/v1/notifications/channels/${ids.slack}`)).status, 'ok', 'a failed test neither retries nor pauses');
    const log = await getJson<Log>(t, key, `/v1/notifications/channels/${ids.slack}/deliveries`);
    assert.deepEqual(log.data.map((d) => d.status), ['failed', 'delivered']);
  });

  it('secrets are sealed at rest and never returned, only their names', async () => {
    const { t, key, ids } = await setup();
    const ch = await getJson<Channel & Record<string, unknown>>(t, key, `/v1/notifications/channels/${ids.pushover}`);
    assert.deepEqual(ch.secrets_set, ['app_token', 'user_key']);
    const text = JSON.stringify(await getJson(t, key, '/v1/notifications/channels'));
    for (const secret of ['azGDORePK8gMaC0QOYAMyEEuzJnyUi', '123456:ABC-test-token', 'discord-token', 'slack-token']) {
      assert.ok(!text.includes(secret), `${secret} returned`);
    }
    const stored = JSON.stringify(await t.deps.db.selectFrom('notification_channels').select('secret_sealed').execute());
    for (const secret of ['azGDORePK8gMaC0QOYAMyEEuzJnyUi', 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG', '123456:ABC-test-token', 'discord-token', 'slack-token']) {
      assert.ok(!stored.includes(secret), `${secret} stored in clear`);
    }
  });

  it('PATCH replaces the settings as a whole, checked like a new channel of its kind; the secrets stay unless given', async () => {
    const { t, key, s: stand, ids } = await setup();
    const patch = (id: string, body: unknown) => t.request(`/v1/notifications/channels/${id}`, { method: 'PATCH', headers: bearer(key, true), body: JSON.stringify(body) });
    const bad = await patch(ids.ntfy, { settings: { server_url: `${stand.baseUrl}/ntfy` } });
    assert.equal(bad.status, 400, 'an ntfy channel without a topic');
    assert.equal((await patch(ids.ntfy, { settings: { server_url: `${stand.baseUrl}/ntfy`, topic: 'workshop' }, name: 'Workshop' })).status, 200);
    assert.equal((await patch(ids.telegram, { name: 'Team chat' })).status, 200);
    await t.deps.events.recordNow('job.failed', failedJob());
    passGroupWindow(t);
    await eventually(() => stand.of('ntfy').length === 1 && stand.of('telegram').length === 1, 'sent with the new settings and the kept token');
    assert.equal(stand.of('ntfy')[0]!.body.topic, 'workshop');
    assert.deepEqual(stand.refused, [], 'the bot token was kept');
    assert.equal((await getJson<{ name: string }>(t, key, `/v1/notifications/channels/${ids.ntfy}`)).name, 'Workshop');
  });

  it('refuses a channel without the secret its kind needs, and an unknown kind', async () => {
    const { t, key } = await notifyApp();
    open.push(t);
    const post = (body: unknown) => t.request('/v1/notifications/channels', { method: 'POST', headers: bearer(key, true), body: JSON.stringify(body) });
    const noToken = await post({ kind: 'telegram', name: 'x', events: ['*'], settings: { chat_id: '1' } });
    assert.equal(noToken.status, 400);
    assert.match(((await noToken.json()) as { error: { message: string } }).error.message, /needs bot_token/);
    assert.equal((await post({ kind: 'pager', name: 'x', events: ['*'], settings: {} })).status, 400);
  });
});
