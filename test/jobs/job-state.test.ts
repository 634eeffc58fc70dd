// Table tests of the job state machine: every trigger from every status, allowed or 409 invalid_state.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/errors.js';
import { JOB_STATUSES, transition, type JobStatus, type JobTrigger } from '../../src/jobs/job-state.js';

const triggers: Record<JobTrigger['type'], JobTrigger> = {
  start: { type: 'start', printerId: 'prt_a' },
  pause: { type: 'pause' },
  resume: { type: 'resume' },
  complete: { type: 'complete' },
  fail: { type: 'fail', error: { code: 'firmware_error', message: 'thermal runaway' } },
  cancel: { type: 'cancel' },
  requeue: { type: 'requeue' },
};

// from → trigger → [to, event] or null when refused
const TABLE: Record<JobStatus, Partial<Record<JobTrigger['type'], [JobStatus, string | null]>>> = {
  queued: { start: ['printing', 'job.started'], cancel: ['cancelled', 'job.cancelled'] },
  printing: {
    pause: ['paused', 'job.paused'],
    complete: ['completed', 'job.completed'],
    fail: ['failed', 'job.failed'],
    cancel: ['cancelled', 'job.cancelled'],
    requeue: ['queued', null],
  },
  paused: { resume: ['printing', 'job.resumed'], fail: ['failed', 'job.failed'], cancel: ['cancelled', 'job.cancelled'] },
  completed: {},
  failed: {},
  cancelled: {},
};

for (const from of JOB_STATUSES) {
  for (const [name, trigger] of Object.entries(triggers)) {
    const expected = TABLE[from][name as JobTrigger['type']];
    test(`${from} --${name}--> ${expected ? expected[0] : 'refused'}`, () => {
      if (!expected) {
        assert.throws(
          () => transition('job_x', from, trigger),
          (e: unknown) => e instanceof AppError && e.status === 409 && e.code === 'invalid_state' && e.message.includes(from),
        );
        return;
      }
      const t = transition('job_x', from, trigger);
      assert.equal(t.to, expected[0]);
      assert.equal(t.event, expected[1]);
      assert.equal(t.sets.started, name === 'start');
      assert.equal(t.sets.completed, ['completed', 'failed', 'cancelled'].includes(expected[0]));
      assert.deepEqual(t.sets.error, name === 'fail' ? { code: 'firmware_error', message: 'thermal runaway' } : null);
      assert.equal(t.sets.printerId, name === 'start' ? 'prt_a' : null);
    });
  }
}

test('a refusal on a finished job says it has ended', () => {
  assert.throws(() => transition('job_x', 'completed', { type: 'cancel' }), /cannot cancel job job_x: it is completed \(it has ended\)/);
});
