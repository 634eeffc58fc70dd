// A network printer's cancel as the API sees it: done when the printer ends the print quickly, else `pending` (the job
// shows pending_action cancel) while the printer finishes its cancel on its own time.

/**
 * How long a cancel may take before the API answers `pending` instead: a farm owner must see within 2 s that the
 * cancel was taken, while OctoPrint drains Marlin's planner or Klipper finishes an M109 wait.
 */
export const CANCEL_ANSWER_MS = 1200;

/**
 * Resolves 'cancelled' when `done` settles within `answerMs`, 'pending' otherwise; a failure within that time is
 * thrown, a later one goes to `late` (the job's pending cancel is withdrawn there).
 */
export async function cancelOrPending(done: Promise<void>, late: (err: Error) => void, answerMs = CANCEL_ANSWER_MS): Promise<'cancelled' | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), answerMs)));
  try {
    const first = await Promise.race([done.then(() => 'cancelled' as const), slow]);
    if (first === 'pending') done.catch(late);
    return first;
  } finally {
    clearTimeout(timer);
  }
}
