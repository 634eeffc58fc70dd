// List pages order NULLs the same on both engines (first ascending, last descending), as the SQLite farm always did.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DbHandle } from '../../src/storage/db.js';
import { runListQuery, type ListQuery } from '../../src/storage/list-page.js';
import { openTestDatabase } from '../helpers/test-database.js';

const NOW = '2026-11-26T12:00:00.000Z';
const printer = (id: string, model: string | null) => ({
  id,
  name: id,
  connection_url: `sim://${id}`,
  api_key_sealed: null,
  model,
  group_name: null,
  tags: '[]',
  ready: 1,
  firmware: null,
  material_type: null,
  material_color: null,
  nozzle_diameter: null,
  heatup_watts: null,
  power_watts: null,
  clear_bed_gcode: null,
  clear_bed_temperature: null,
  created_at: NOW,
  updated_at: NOW,
});

describe('list order with NULLs', () => {
  let h: DbHandle;
  before(async () => {
    h = await openTestDatabase(NOW);
    await h.db.insertInto('printers').values([printer('p1', 'b'), printer('p2', null), printer('p3', 'a'), printer('p4', null)]).execute();
  });
  after(() => h?.close());

  const ids = async (desc: boolean): Promise<string[]> => {
    const q: ListQuery = {
      page: 1,
      perPage: 10,
      sort: [
        { field: 'model', column: 'model', desc },
        { field: 'id', column: 'id', desc: false },
      ],
      fields: null,
      where: [],
    };
    return (await runListQuery(h.db.selectFrom('printers').selectAll(), q, (r) => ({ id: r.id }))).data.map((r) => r.id!);
  };

  it('ascending: NULLs first, then by value', async () => {
    assert.deepEqual(await ids(false), ['p2', 'p4', 'p3', 'p1']);
  });

  it('descending: by value, NULLs last', async () => {
    assert.deepEqual(await ids(true), ['p1', 'p3', 'p2', 'p4']);
  });
});
