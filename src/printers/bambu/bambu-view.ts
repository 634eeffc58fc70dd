// What the API and the live stream show of a Bambu printer beyond the common fields: model, pinned certificate, layer,
// time left, part fan, the AMS trays and the HMS errors in words. One schema for the record, one pure mapping.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { trayLabel } from '../../protocol/bambu/ams-mapping.js';
import { hmsWords, type BambuReading } from '../../protocol/bambu/bambu-report.js';

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Where the printer's own HMS pages start (we carry no copy of Bambu's texts). */
export const HMS_WIKI_URL = 'https://wiki.bambulab.com/en/hms/home';

export const BambuTraySchema = Type.Object({
  index: Type.Integer({ description: 'Global tray index as ams_mapping counts it: unit * 4 + tray.' }),
  unit: Type.Integer({ description: 'AMS unit, from 0.' }),
  tray: Type.Integer({ description: 'Tray in its unit, 0..3.' }),
  label: Type.String({ description: 'As the printer labels it: A1..A4 for the first unit, B1.. for the second.' }),
  type: nullable(Type.String({ description: 'Material type the tray reports (PLA, PETG, …); null when empty.' })),
  color: nullable(Type.String({ description: '#RRGGBB; null when empty or unknown.' })),
  remain_percent: nullable(Type.Number({ description: 'Percent left; null when the spool has no chip.' })),
  active: Type.Boolean({ description: 'Whether this tray feeds the toolhead now.' }),
});

export const BambuHmsSchema = Type.Object({
  code: Type.String({ description: 'HMS_AAAA_AAAA_CCCC_CCCC, as the printer screen shows it.' }),
  severity: Type.Union([Type.Literal('fatal'), Type.Literal('serious'), Type.Literal('common'), Type.Literal('info'), Type.Literal('unknown')]),
  module: Type.String({ description: 'The part that reports it: motion controller, mainboard, AMS, toolhead, camera, printer.' }),
  message: Type.String({ description: 'The error in words.' }),
  url: Type.String({ description: "Bambu's page about HMS codes." }),
});

export const BambuViewSchema = Type.Object(
  {
    model: nullable(Type.String({ description: 'The product name the printer reports (get_version), null until it answered.' })),
    serial: Type.String(),
    certificate_fingerprint: nullable(
      Type.String({ description: "SHA-256 of the printer's certificate this farm trusts (from ?fingerprint=, or pinned on first contact)." }),
    ),
    presented_fingerprint: nullable(
      Type.String({ description: "After a tls_error: the SHA-256 of the certificate the printer presents instead of the pinned one (re-pin with ?fingerprint= once you trust it); null otherwise." }),
    ),
    layer: nullable(Type.Integer()),
    total_layers: nullable(Type.Integer()),
    remaining_minutes: nullable(Type.Number({ description: 'Time left as the printer estimates it.' })),
    part_fan_percent: nullable(Type.Number()),
    ams: Type.Array(BambuTraySchema),
    hms: Type.Array(BambuHmsSchema),
  },
  { description: 'Extension, Bambu Lab printers only (null for the other kinds): what the printer reports beyond the common fields.' },
);
export type BambuView = Static<typeof BambuViewSchema>;

export interface BambuIdentity {
  serial: string;
  model: string | null;
  fingerprint: string | null;
  /** The certificate presented instead of the pin (a tls_error), or null. */
  presented: string | null;
}

/** The view of a printer from its last reading (null before the first full report: only the identity is known). */
export function bambuView(id: BambuIdentity, r: BambuReading | null): BambuView {
  const active = r?.activeTray ?? null;
  return {
    model: id.model,
    serial: id.serial,
    certificate_fingerprint: id.fingerprint,
    presented_fingerprint: id.presented,
    layer: r?.layer ?? null,
    total_layers: r?.totalLayers ?? null,
    remaining_minutes: r?.remainingMinutes ?? null,
    part_fan_percent: r?.partFanPercent ?? null,
    ams: (r?.trays ?? []).map((t) => {
      const unit = Math.floor(t.index / 4);
      const tray = t.index % 4;
      return {
        index: t.index,
        unit,
        tray,
        label: trayLabel(t.index),
        type: t.type,
        color: t.color ? `#${t.color}` : null,
        remain_percent: t.remainPercent,
        active: active === t.index,
      };
    }),
    hms: (r?.hms ?? []).map((h) => ({ code: h.code, severity: h.severity, module: h.module, message: hmsWords(h), url: HMS_WIKI_URL })),
  };
}
