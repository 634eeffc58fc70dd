// print_options on a job create: kept on the job as given (JSON body, or JSON text in a multipart field), refused
// with a clear error and no job when malformed, of a wrong type or naming an unknown option.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dbRow } from '../helpers/test-database.js';
import { startPrintersApp, type PrintersApp } from '../printers/printers-api-harness.js';
import { gcode, uploadJob } from './jobs-harness.js';

describe('job print_options', () => {
  let app: PrintersApp;
  before(async () => {
    app = await startPrintersApp();
  });
  after(async () => app?.close());
  const count = async (): Promise<number> => (await dbRow<{ n: number }>(app.t.handle, 'SELECT count(*) AS n FROM jobs'))!.n;

  it('multipart: JSON text in the print_options field, shown on the job; none given is null', async () => {
    const res = await uploadJob(app, gcode(), { print_options: '{"timelapse":true,"bed_levelling":false}' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.data.print_options, { timelapse: true, bed_levelling: false });
    const again = await app.call('GET', `/v1/jobs/${res.body.data.id}`);
    assert.deepEqual(again.body.print_options, { timelapse: true, bed_levelling: false });
    const plain = await uploadJob(app, gcode());
    assert.equal(plain.body.data.print_options, null);
  });

  it('JSON: an object, kept on every copy', async () => {
    const stored = await uploadJob(app, gcode({ tag: 'stored' }));
    const fileId = (await app.call('GET', `/v1/jobs/${stored.body.data.id}`)).body.file_id as string;
    const res = await app.call('POST', '/v1/jobs', { file_id: fileId, copies: 2, print_options: { flow_calibration: true } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    for (const id of res.body.job_ids ?? res.body.data.job_ids) {
      assert.deepEqual((await app.call('GET', `/v1/jobs/${id}`)).body.print_options, { flow_calibration: true });
    }
  });

  it('bad print_options: a clear 400, no job', async () => {
    const before = await count();
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ print_options: '{timelapse:true' }, /print_options: must be JSON text of an object/],
      [{ print_options: '{"timelapse":"yes"}' }, /print_options\.timelapse/],
      [{ print_options: '{"spaghetti_detection":true}' }, /print_options/],
      [{ print_options: '[true]' }, /print_options/],
    ];
    for (const [fields, message] of cases) {
      const res = await uploadJob(app, gcode(), fields);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.match(res.body.error.message, message);
    }
    const json = await app.call('POST', '/v1/jobs', { file_url: 'http://127.0.0.1:9/x.gcode', print_options: { timelapse: 1 } });
    assert.equal(json.status, 400);
    assert.match(json.body.error.message, /print_options\.timelapse/);
    assert.equal(await count(), before);
  });
});
