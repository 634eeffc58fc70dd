// Pure: seconds left of a print, from the slicer's estimate corrected by the pace measured so far.

/**
 * `estimate` is the slicer's whole-print estimate (s) or null, `progress` percent 0..100 of bytes acknowledged,
 * `elapsed` seconds printed (pauses excluded). Early in a print the slicer knows better (heat-up skews the pace);
 * the measured pace takes over as progress grows, fully from 50 %.
 */
export function estimateRemaining(estimate: number | null, progress: number, elapsed: number): number | null {
  const done = Math.min(Math.max(progress, 0), 100) / 100;
  if (done >= 1) return 0;
  const byPace = done > 0 ? (elapsed * (1 - done)) / done : null;
  if (estimate == null || estimate <= 0) return byPace == null ? null : Math.round(byPace);
  const bySlicer = Math.max(estimate * (1 - done), 0);
  if (byPace == null) return Math.round(Math.max(estimate - elapsed, bySlicer * 0.05));
  const trust = Math.min(done / 0.5, 1);
  return Math.round(bySlicer * (1 - trust) + byPace * trust);
}
