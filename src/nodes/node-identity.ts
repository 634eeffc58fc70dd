// Who this appliance is among the nodes sharing a database: an id kept in the data directory (so a restarted node is the
// same node and takes its printers back), a name people read, and the address other nodes forward printer actions to.
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId } from '../ids.js';

export const NODE_ID_FILE = 'node-id';

export interface NodeIdentity {
  id: string;
  name: string;
  /** Base URL (http://host:port) other nodes reach this one at; null when unknown. */
  address: string | null;
}

const NODE_ID = /^nod_[0-9A-Za-z]{20}$/;

/** Reads <dataDir>/node-id, creating it on the first start. */
export function loadNodeId(dataDir: string): string {
  const file = path.join(dataDir, NODE_ID_FILE);
  try {
    const text = readFileSync(file, 'utf8').trim();
    if (!NODE_ID.test(text)) throw new Error(`${file} does not hold a node id (nod_ and 20 letters or digits); delete it to start as a new node`);
    return text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const id = newId('nod');
  try {
    // 'wx': two processes starting at once on one directory keep the first id.
    writeFileSync(file, id + '\n', { flag: 'wx' });
    return id;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readFileSync(file, 'utf8').trim();
  }
}

/** The first non-internal IPv4 address of this machine (what other boxes on the LAN reach), or 127.0.0.1. */
export function defaultNodeAddress(port: number): string {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return `http://${a.address}:${port}`;
  }
  return `http://127.0.0.1:${port}`;
}

export const defaultNodeName = (): string => os.hostname();
