// Every CLI command, listed statically (a bundled binary cannot discover modules at run time).
import type { CliCommand } from './command.js';
import { doctorCommand } from './doctor.command.js';
import { keysCommand } from './keys.command.js';
import { serveCommand } from './serve.command.js';
import { simulateCommand } from './simulate.command.js';
import { streamCommand } from './stream.command.js';
import { consoleCommand } from './console.command.js';

export const commands: CliCommand[] = [serveCommand, doctorCommand, keysCommand, simulateCommand, streamCommand, consoleCommand];
