// Test helpers for the materials API: create a spool, read it, and the stored public events about a material.
import assert from 'node:assert/strict';
import type { MaterialRecord } from '../../src/materials/materials.service.js';
import type { PrintersApp } from '../printers/printers-api-harness.js';
import { dbRows } from '../helpers/test-database.js';

export async function createSpool(app: PrintersApp, body: Record<string, unknown>): Promise<MaterialRecord> {
  const res = await app.call('POST', '/v1/materials', body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as MaterialRecord;
}

export async function getSpool(app: PrintersApp, id: string): Promise<MaterialRecord> {
  const res = await app.call('GET', `/v1/materials/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as MaterialRecord;
}

export async function patchSpool(app: PrintersApp, id: string, body: Record<string, unknown>): Promise<MaterialRecord> {
  const res = await app.call('PATCH', `/v1/materials/${id}`, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as MaterialRecord;
}

/** Types of the stored public events about this material, in order. */
export async function materialEvents(app: PrintersApp, id: string): Promise<string[]> {
  const rows = await dbRows<{ type: string; body: string }>(app.t.handle, "SELECT type, body FROM events WHERE type LIKE 'material.%' ORDER BY seq");
  return rows.filter((r) => (JSON.parse(r.body) as { data: { object: { id?: string } } }).data.object.id === id).map((r) => r.type);
}
