// The factory the printers service calls for `octoprint://` and `octoprint+https://` URLs.
import { OctoPrintPrinter, type OctoPrintPrinterOptions } from './octoprint-printer.js';

export { OctoPrintPrinter, type OctoPrintPrinterOptions } from './octoprint-printer.js';

export function createOctoPrintPrinter(opts: OctoPrintPrinterOptions): OctoPrintPrinter {
  return new OctoPrintPrinter(opts);
}
