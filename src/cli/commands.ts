// Every CLI command, listed statically (a bundled binary cannot discover modules at run time) and loaded only when run,
// so `printfarm --version` or `keys` do not pay for the HTTP stack, serial addon or simulator.
import type { CliCommand } from './command.js';

export interface CommandEntry {
  name: string;
  /** One line for `printfarm --help`. */
  summary: string;
  load(): Promise<CliCommand>;
}

export const commands: CommandEntry[] = [
  { name: 'serve', summary: 'Run the API server and dashboard', load: async () => (await import('./serve.command.js')).serveCommand },
  { name: 'keys', summary: 'Mint an API key offline (keys create)', load: async () => (await import('./keys.command.js')).keysCommand },
  { name: 'analytics', summary: 'Rebuild the analytics roll-ups from the jobs (analytics rebuild)', load: async () => (await import('./analytics.command.js')).analyticsCommand },
  { name: 'backup', summary: 'Write a backup archive of a data directory, also while the server runs', load: async () => (await import('./backup.command.js')).backupCommand },
  { name: 'restore', summary: 'Verify a backup archive and restore it into an empty data directory', load: async () => (await import('./restore.command.js')).restoreCommand },
  { name: 'db', summary: 'Copy a whole farm between databases, verified (db copy --from sqlite:DIR --to postgres://…)', load: async () => (await import('./db-copy.command.js')).dbCopyCommand },
  { name: 'doctor', summary: 'Check that this install can run: SQLite, serial addon and ports, shipped files', load: async () => (await import('./doctor.command.js')).doctorCommand },
  { name: 'stream', summary: 'Stream one G-code file to one printer and print a summary', load: async () => (await import('./stream.command.js')).streamCommand },
  { name: 'console', summary: 'Interactive G-code terminal on one printer', load: async () => (await import('./console.command.js')).consoleCommand },
  { name: 'simulate', summary: 'Run virtual printers on a pseudo-terminal (--pty PATH) or raw TCP ports (--tcp PORT) for any host to connect to', load: async () => (await import('./simulate.command.js')).simulateCommand },
];
