// Builds ZIP archives by the format's layout (local headers, central directory, end record) for tests, and sliced 3MF
// projects as Bambu Studio and OrcaSlicer lay them out: Metadata/plate_N.gcode (+ .md5), plate_N.png, slice_info.config.
import { createHash } from 'node:crypto';
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipPart {
  name: string;
  data: Buffer | string;
  /** Deflate (default) or store. */
  stored?: boolean;
  /** Write this as the inflated size instead of the true one (a lying archive, a zip bomb). */
  declaredSize?: number;
  /** Write this CRC instead of the true one. */
  crc?: number;
}

/** One ZIP archive holding the parts in order. */
export function zip(parts: readonly ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const data = Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data, 'utf8');
    const body = part.stored ? data : deflateRawSync(data);
    const name = Buffer.from(part.name, 'utf8');
    const crc = part.crc ?? crc32(data) >>> 0;
    const size = part.declaredSize ?? data.length;
    const method = part.stored ? 0 : 8;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0800, 8);
    entry.writeUInt16LE(method, 10);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(body.length, 20);
    entry.writeUInt32LE(size, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, name);
    offset += 30 + name.length + body.length;
  }
  const dir = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

export interface FilamentSpec {
  slot: number;
  type: string;
  color: string;
  used_g: number;
  used_m: number;
}

export interface PlateSpec {
  index: number;
  /** slice_info.config's printer_model_id (C12: P1S); omitted: not written. */
  model?: string;
  nozzle?: string;
  prediction?: number;
  weight?: number;
  filaments?: FilamentSpec[];
  gcode?: string;
  /** Write a wrong MD5 beside the G-code. */
  badMd5?: boolean;
  png?: Buffer;
}

/** A P1S plate (model C12, 0.4 mm nozzle) using slots 1 and 3: white PLA and orange PETG; `extra` adds or replaces. */
export const p1sPlate = (extra: Partial<PlateSpec> = {}): PlateSpec => ({
  index: 1,
  model: 'C12',
  nozzle: '0.4',
  prediction: 5075,
  weight: 15.88,
  filaments: [
    { slot: 1, type: 'PLA', color: '#FFFFFF', used_g: 12.5, used_m: 4.19 },
    { slot: 3, type: 'PETG', color: '#FF6600', used_g: 3.38, used_m: 1.1 },
  ],
  ...extra,
});

/** slice_info.config as Bambu Studio writes it: a header with the client version, one <plate> per sliced plate. */
export function sliceInfo(plates: readonly PlateSpec[], clientVersion = '01.09.05.51'): string {
  const meta = (key: string, value: string | number | undefined) => (value === undefined ? [] : [`    <metadata key="${key}" value="${value}"/>`]);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<config>',
    '  <header>',
    '    <header_item key="X-BBL-Client-Type" value="slicer"/>',
    `    <header_item key="X-BBL-Client-Version" value="${clientVersion}"/>`,
    '  </header>',
    ...plates.flatMap((p) => [
      '  <plate>',
      ...meta('index', p.index),
      ...meta('printer_model_id', p.model),
      ...meta('nozzle_diameters', p.nozzle),
      ...meta('timelapse_type', 0),
      ...meta('prediction', p.prediction),
      ...meta('weight', p.weight?.toFixed(2)),
      ...meta('outside', 'false'),
      ...meta('support_used', 'false'),
      '    <object identify_id="102" name="bracket.stl" skipped="false"/>',
      ...(p.filaments ?? []).map(
        (f) => `    <filament id="${f.slot}" tray_info_idx="GFA00" type="${f.type}" color="${f.color}" used_m="${f.used_m.toFixed(2)}" used_g="${f.used_g.toFixed(2)}"/>`,
      ),
      '  </plate>',
    ]),
    '</config>',
    '',
  ].join('\n');
}

/** The parts every 3MF holds, sliced or not (the model itself, minimal). */
export const PROJECT_PARTS: ZipPart[] = [
  { name: '[Content_Types].xml', data: '<?xml version="1.0" encoding="UTF-8"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>\n' },
  { name: '_rels/.rels', data: '<?xml version="1.0" encoding="UTF-8"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>\n' },
  { name: '3D/3dmodel.model', data: '<?xml version="1.0" encoding="UTF-8"?>\n<model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02"/>\n' },
];

/** A sliced 3MF (.gcode.3mf) with these plates; `sliceInfoText` replaces the generated slice_info.config ('' omits it). */
export function sliced3mf(plates: readonly PlateSpec[], sliceInfoText?: string): Buffer {
  const parts: ZipPart[] = [...PROJECT_PARTS];
  for (const p of plates) {
    const gcode = p.gcode ?? 'G28\nG1 X10 Y10 F3000\n';
    const md5 = p.badMd5 ? '0'.repeat(32) : createHash('md5').update(gcode).digest('hex').toUpperCase();
    parts.push({ name: `Metadata/plate_${p.index}.gcode`, data: gcode }, { name: `Metadata/plate_${p.index}.gcode.md5`, data: md5, stored: true });
    if (p.png) parts.push({ name: `Metadata/plate_${p.index}.png`, data: p.png, stored: true });
  }
  const info = sliceInfoText ?? sliceInfo(plates);
  if (info !== '') parts.push({ name: 'Metadata/slice_info.config', data: info });
  parts.push({ name: 'Metadata/project_settings.config', data: '{\n  "printer_model": "Bambu Lab P1S"\n}\n' });
  return zip(parts);
}
