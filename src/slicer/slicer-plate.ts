// The plate a slicer asks to print from a sliced 3MF (OrcaSlicer's Moonraker upload sends `plateindex`, 1-based, with a
// .gcode.3mf): a job prints the file's first sliced plate, so any other plate is refused in words. Pure.
import type { FileRecord } from '../files/files.schemas.js';
import type { TargetProblem } from './slicer-target.js';

/** Null when the upload may be queued as it is; a 400 naming the file's plates otherwise. */
export function plateProblem(file: Pick<FileRecord, 'format' | 'plates'>, plateIndex: string | undefined): TargetProblem | null {
  const text = plateIndex?.trim() ?? '';
  // Only a sliced 3MF has plates; the field means nothing beside plain or binary G-code.
  if (text === '' || file.format !== '3mf') return null;
  const wanted = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  const sliced = file.plates.map((p) => p.index);
  if (!Number.isInteger(wanted) || !sliced.includes(wanted)) {
    return { status: 400, message: `plateindex "${text.slice(0, 20)}" names no sliced plate of this 3MF; it holds plate ${sliced.join(', ')}` };
  }
  if (wanted !== sliced[0]) {
    return {
      status: 400,
      message: `the farm prints the first sliced plate of a 3MF (plate ${sliced[0]}), not plate ${wanted}: send that plate alone ("Export plate sliced file", or slice only plate ${wanted})`,
    };
  }
  return null;
}
