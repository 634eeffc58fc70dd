// Reads where a slicer upload should go from the folder it was sent to: `group/<name>`, `printer/<name or id>`,
// `x<copies>` and a priority word, in any order, then the file name. Pure: printers and groups are looked up elsewhere.
import { JOB_PRIORITIES } from '../jobs/jobs.schemas.js';

type JobPriority = (typeof JOB_PRIORITIES)[number];

/** What the folders asked for. Names are as typed; the upload service checks them against the farm's printers. */
export interface SlicerTarget {
  /** The file name without folders, as the job's file name. */
  fileName: string;
  /** The job name: the file name without its extension. */
  jobName: string;
  format: 'gcode' | 'bgcode' | '3mf';
  /** The folders as sent (slashes and backslashes split, empty ones dropped). */
  folders: string[];
  group?: string;
  printer?: string;
  copies?: number;
  priority?: JobPriority;
}

/** A refusal the slicer shows to the person: the HTTP status and one sentence. */
export interface TargetProblem {
  status: 400 | 415;
  message: string;
}

export const MAX_FILE_NAME_CHARS = 255;
export const MAX_COPIES = 100;

/** What the folder words mean, for errors and the API reference. */
export const FOLDER_GRAMMAR = 'group/<group>, printer/<printer name or id>, x<copies> (x1 to x100) and low, normal, high or urgent';

const GCODE_EXTENSIONS = /\.(gcode|gco|g)$/i;
const BGCODE_EXTENSION = /\.bgcode$/i;
const THREE_MF = /\.3mf$/i;
const MODELS = /\.(stl|obj|step|stp|amf|ply|3ds)$/i;

/**
 * Why a file of this name cannot be queued, or its format. A .3mf is taken by its name: the file store then keeps a
 * sliced one (plate G-code inside, for Bambu printers) and refuses a project that was never sliced.
 */
export function fileFormatOf(name: string): { format: 'gcode' | 'bgcode' | '3mf' } | TargetProblem {
  if (BGCODE_EXTENSION.test(name)) return { format: 'bgcode' };
  if (GCODE_EXTENSIONS.test(name)) return { format: 'gcode' };
  if (THREE_MF.test(name)) return { format: '3mf' };
  if (MODELS.test(name)) {
    return { status: 415, message: `"${cut(name)}" is a 3D model, not a print: slice it first and send the G-code (.gcode, .bgcode or a sliced .gcode.3mf)` };
  }
  return { status: 415, message: `"${cut(name)}" is not G-code: the farm takes .gcode, .gco, .g, Prusa's binary .bgcode and sliced 3MF (.gcode.3mf)` };
}

const cut = (s: string, n = 80): string => (s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * Splits a slicer's folder and file name into the target. `folders` may use `/` or Windows `\`, may start with `/`,
 * and is joined with any folders inside `fileName` (PrusaSlicer on Linux sends `a\b\c.gcode` as one name).
 */
export function parseSlicerTarget(folders: string, fileName: string): SlicerTarget | TargetProblem {
  const all = `${folders}/${fileName}`.replace(/\\/g, '/').split('/').filter((s) => s !== '');
  const name = all.pop();
  if (name === undefined) return { status: 400, message: 'the upload has no file name' };
  for (const seg of [...all, name]) {
    if (seg === '.' || seg === '..') return { status: 400, message: `the path may not contain "${seg}": name a folder of the farm (${FOLDER_GRAMMAR})` };
    if (/[\u0000-\u001f\u007f]/.test(seg)) return { status: 400, message: 'the path contains a control character' };
  }
  if ([...name].length > MAX_FILE_NAME_CHARS) {
    return { status: 400, message: `the file name is ${[...name].length} characters long; the farm keeps names up to ${MAX_FILE_NAME_CHARS}` };
  }
  const kind = fileFormatOf(name);
  if ('status' in kind) return kind;
  const target: SlicerTarget = { fileName: name, jobName: name.replace(/(\.gcode)?\.3mf$|\.(bgcode|gcode|gco|g)$/i, '') || name, format: kind.format, folders: [...all] };
  for (let i = 0; i < all.length; i++) {
    const seg = all[i] as string;
    const word = seg.toLowerCase();
    const twice = (what: string): TargetProblem => ({ status: 400, message: `the path names ${what} twice: give it once` });
    if (word === 'group' || word === 'printer') {
      const value = all[++i];
      if (value === undefined) return { status: 400, message: `the folder "${seg}" must be followed by the ${word}'s name, e.g. ${word}/bay-1/` };
      if (word === 'group') {
        if (target.group !== undefined) return twice('a group');
        target.group = value;
      } else {
        if (target.printer !== undefined) return twice('a printer');
        target.printer = value;
      }
      continue;
    }
    const copies = /^x(\d{1,4})$/i.exec(seg);
    if (copies) {
      const n = Number(copies[1]);
      if (n < 1 || n > MAX_COPIES) return { status: 400, message: `"${seg}" asks for ${n} copies; the farm makes 1 to ${MAX_COPIES}` };
      if (target.copies !== undefined) return twice('a number of copies');
      target.copies = n;
      continue;
    }
    if ((JOB_PRIORITIES as readonly string[]).includes(word)) {
      if (target.priority !== undefined) return twice('a priority');
      target.priority = word as JobPriority;
      continue;
    }
    return { status: 400, message: `unknown folder "${cut(seg, 60)}": the farm reads ${FOLDER_GRAMMAR}` };
  }
  if (target.group !== undefined && target.printer !== undefined) {
    return { status: 400, message: 'the path names both a group and a printer: a job goes to one printer or to any printer of a group' };
  }
  return target;
}

export const isTargetProblem = (t: SlicerTarget | TargetProblem | { format: string }): t is TargetProblem => 'status' in t;
