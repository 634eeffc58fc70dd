// Every CLI command, listed statically (a bundled binary cannot discover modules at run time).
import type { CliCommand } from './command.js';
import { doctorCommand } from './doctor.command.js';

export const commands: CliCommand[] = [doctorCommand];
