// One transcript per slicer, host type and action: the exact requests each slicer sends and the checks it makes of each
// answer (play one with replay() from ./replay.js). Facts behind every byte: /work/notes/slicer-facts.md.
import { orcaMoonraker, prusaMoonraker } from './moonraker-requests.js';
import { curaMoonraker, curaOctoPrint, type CuraOpts } from './cura-requests.js';
import { curlOctoPrint, curlPrusaLink, curlPrusaLink25, type CurlSlicerOpts } from './prusa-requests.js';
import type { Transcript } from './replay.js';

export type { CuraOpts } from './cura-requests.js';
export type { Action, CurlSlicerOpts } from './prusa-requests.js';
export { SAMPLE_GCODE } from './prusa-requests.js';
export { replay, type ReplayResult, type Transcript } from './replay.js';

// PrusaSlicer master (2.9.4, libcurl 8); 2.5.2 as Debian 12 builds it against its libcurl 7.88.
const PS = 'PrusaSlicer/2.9.4';
const PS25 = 'PrusaSlicer/2.5.2';
// OrcaSlicer's User-Agent is its own app name and version (value not verified against its Http.cpp).
const ORCA = 'OrcaSlicer/2.3.1';

type T<O> = (o?: O) => Transcript;

export const prusaSlicerOctoPrintTest: T<CurlSlicerOpts> = (o = {}) => curlOctoPrint('test', o, PS, 'curl8');
export const prusaSlicerOctoPrintUpload: T<CurlSlicerOpts> = (o = {}) => curlOctoPrint('upload', o, PS, 'curl8');
export const prusaSlicerOctoPrintUploadAndPrint: T<CurlSlicerOpts> = (o = {}) => curlOctoPrint('upload-and-print', o, PS, 'curl8');
export const prusaSlicer25OctoPrintTest: T<CurlSlicerOpts> = (o = {}) => curlOctoPrint('test', o, PS25, 'curl7.88');
export const prusaSlicer25OctoPrintUpload: T<CurlSlicerOpts> = (o = {}) => curlOctoPrint('upload', o, PS25, 'curl7.88');
export const prusaSlicer25OctoPrintUploadAndPrint: T<CurlSlicerOpts> = (o = {}) => curlOctoPrint('upload-and-print', o, PS25, 'curl7.88');

export const prusaSlicerPrusaLinkTest: T<CurlSlicerOpts> = (o = {}) => curlPrusaLink('test', o, PS, 'curl8');
export const prusaSlicerPrusaLinkUpload: T<CurlSlicerOpts> = (o = {}) => curlPrusaLink('upload', o, PS, 'curl8');
export const prusaSlicerPrusaLinkUploadAndPrint: T<CurlSlicerOpts> = (o = {}) => curlPrusaLink('upload-and-print', o, PS, 'curl8');
export const prusaSlicer25PrusaLinkTest: T<CurlSlicerOpts> = (o = {}) => curlPrusaLink25('test', o, PS25, 'curl7.88');
export const prusaSlicer25PrusaLinkUpload: T<CurlSlicerOpts> = (o = {}) => curlPrusaLink25('upload', o, PS25, 'curl7.88');
export const prusaSlicer25PrusaLinkUploadAndPrint: T<CurlSlicerOpts> = (o = {}) => curlPrusaLink25('upload-and-print', o, PS25, 'curl7.88');

export const prusaSlicerMoonrakerTest: T<CurlSlicerOpts> = (o = {}) => prusaMoonraker('test', o, PS, 'curl8');
export const prusaSlicerMoonrakerUpload: T<CurlSlicerOpts> = (o = {}) => prusaMoonraker('upload', o, PS, 'curl8');
export const prusaSlicerMoonrakerUploadAndPrint: T<CurlSlicerOpts> = (o = {}) => prusaMoonraker('upload-and-print', o, PS, 'curl8');

export const orcaOctoPrintTest: T<CurlSlicerOpts> = (o = {}) => curlOctoPrint('test', o, ORCA, 'curl8');
export const orcaOctoPrintUpload: T<CurlSlicerOpts> = (o = {}) => curlOctoPrint('upload', o, ORCA, 'curl8');
export const orcaOctoPrintUploadAndPrint: T<CurlSlicerOpts> = (o = {}) => curlOctoPrint('upload-and-print', o, ORCA, 'curl8');
export const orcaPrusaLinkTest: T<CurlSlicerOpts> = (o = {}) => curlPrusaLink('test', o, ORCA, 'curl8');
export const orcaPrusaLinkUpload: T<CurlSlicerOpts> = (o = {}) => curlPrusaLink('upload', o, ORCA, 'curl8');
export const orcaPrusaLinkUploadAndPrint: T<CurlSlicerOpts> = (o = {}) => curlPrusaLink('upload-and-print', o, ORCA, 'curl8');
export const orcaMoonrakerTest: T<CurlSlicerOpts> = (o = {}) => orcaMoonraker('test', o, ORCA, 'curl8');
export const orcaMoonrakerUpload: T<CurlSlicerOpts> = (o = {}) => orcaMoonraker('upload', o, ORCA, 'curl8');
export const orcaMoonrakerUploadAndPrint: T<CurlSlicerOpts> = (o = {}) => orcaMoonraker('upload-and-print', o, ORCA, 'curl8');

export const curaOctoPrintTest: T<CuraOpts> = (o = {}) => curaOctoPrint('test', o);
export const curaOctoPrintUpload: T<CuraOpts> = (o = {}) => curaOctoPrint('upload', o);
export const curaOctoPrintUploadAndPrint: T<CuraOpts> = (o = {}) => curaOctoPrint('upload-and-print', o);
// Cura's Moonraker plugin has no connection test of its own.
export const curaMoonrakerUpload: T<CuraOpts> = (o = {}) => curaMoonraker('upload', o);
export const curaMoonrakerUploadAndPrint: T<CuraOpts> = (o = {}) => curaMoonraker('upload-and-print', o);
