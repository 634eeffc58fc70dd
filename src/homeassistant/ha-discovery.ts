// Pure: Home Assistant MQTT discovery messages (one retained config per entity) for each printer and for the farm.
// Field names and classes follow Home Assistant's MQTT sensor, binary_sensor and button integrations.
import { VERSION } from '../version.js';
import { STATUS_OPTIONS, type PrinterState, type FarmTotals } from './ha-state.js';
import { availabilityTopic, discoveryTopic, FARM_STATE_TOPIC, printerCommandTopic, printerStateTopic } from './ha-topics.js';

export type Component = 'sensor' | 'binary_sensor' | 'button';

export interface DiscoveryMessage {
  topic: string;
  component: Component;
  config: Record<string, unknown>;
}

export interface PrinterDevice {
  id: string;
  name: string;
  model: string | null;
  firmware: string | null;
}

type Field = keyof PrinterState;

interface EntitySpec {
  key: string;
  component: Component;
  name: string;
  /** The state JSON field the value template reads (sensors and binary sensors). */
  field?: Field;
  extra?: Record<string, unknown>;
}

/** Each printer's entities; the button's payload is the action it asks for. */
export const PRINTER_ENTITIES: readonly EntitySpec[] = [
  { key: 'status', component: 'sensor', name: 'Status', field: 'status', extra: { device_class: 'enum', options: [...STATUS_OPTIONS], icon: 'mdi:printer-3d' } },
  { key: 'hotend', component: 'sensor', name: 'Hotend temperature', field: 'hotend', extra: temperature() },
  { key: 'hotend_target', component: 'sensor', name: 'Hotend target', field: 'hotend_target', extra: temperature() },
  { key: 'bed', component: 'sensor', name: 'Bed temperature', field: 'bed', extra: temperature() },
  { key: 'bed_target', component: 'sensor', name: 'Bed target', field: 'bed_target', extra: temperature() },
  { key: 'job', component: 'sensor', name: 'Job', field: 'job', extra: { icon: 'mdi:file-outline' } },
  { key: 'progress', component: 'sensor', name: 'Progress', field: 'progress', extra: { unit_of_measurement: '%', state_class: 'measurement', icon: 'mdi:progress-clock' } },
  { key: 'time_left', component: 'sensor', name: 'Time left', field: 'time_left', extra: { device_class: 'duration', unit_of_measurement: 's' } },
  { key: 'filament', component: 'sensor', name: 'Filament', field: 'filament', extra: { icon: 'mdi:printer-3d-nozzle' } },
  { key: 'offline_reason', component: 'sensor', name: 'Offline reason', field: 'offline_reason', extra: { entity_category: 'diagnostic' } },
  { key: 'printing', component: 'binary_sensor', name: 'Printing', field: 'printing', extra: { device_class: 'running' } },
  { key: 'problem', component: 'binary_sensor', name: 'Problem', field: 'problem', extra: { device_class: 'problem' } },
  { key: 'online', component: 'binary_sensor', name: 'Connected', field: 'online', extra: { device_class: 'connectivity', entity_category: 'diagnostic' } },
  { key: 'bed_waiting', component: 'binary_sensor', name: 'Bed waiting to be cleared', field: 'bed_waiting', extra: { icon: 'mdi:broom' } },
  { key: 'pause', component: 'button', name: 'Pause', extra: { payload_press: 'pause', icon: 'mdi:pause' } },
  { key: 'resume', component: 'button', name: 'Resume', extra: { payload_press: 'resume', icon: 'mdi:play' } },
  { key: 'cancel', component: 'button', name: 'Cancel', extra: { payload_press: 'cancel', icon: 'mdi:stop' } },
  { key: 'bed_cleared', component: 'button', name: 'Bed cleared', extra: { payload_press: 'ready', icon: 'mdi:check' } },
];

const FARM_ENTITIES: readonly { key: keyof FarmTotals; name: string; icon: string }[] = [
  { key: 'printing', name: 'Printers printing', icon: 'mdi:printer-3d' },
  { key: 'idle', name: 'Printers idle', icon: 'mdi:sleep' },
  { key: 'queued', name: 'Jobs queued', icon: 'mdi:tray-full' },
  { key: 'failed_today', name: 'Jobs failed today', icon: 'mdi:alert-circle' },
];

function temperature(): Record<string, unknown> {
  return { device_class: 'temperature', unit_of_measurement: '°C', state_class: 'measurement' };
}

export const FARM_DEVICE_ID = 'printfarm_farm';
export const printerDeviceId = (printerId: string): string => `printfarm_${printerId}`;

const ORIGIN = { name: 'printfarm', sw_version: VERSION };

function availability(nodeId: string): Record<string, unknown> {
  return { availability_topic: availabilityTopic(nodeId), payload_available: 'online', payload_not_available: 'offline' };
}

/** Every entity of one printer, as retained discovery configs. */
export function printerDiscovery(p: PrinterDevice, nodeId: string): DiscoveryMessage[] {
  const deviceId = printerDeviceId(p.id);
  const device = {
    identifiers: [deviceId],
    name: p.name,
    manufacturer: 'printfarm',
    model: p.model ?? '3D printer',
    ...(p.firmware ? { sw_version: p.firmware } : {}),
    via_device: FARM_DEVICE_ID,
  };
  return PRINTER_ENTITIES.map((e) => {
    const config: Record<string, unknown> = {
      name: e.name,
      unique_id: `${deviceId}_${e.key}`,
      device,
      origin: ORIGIN,
      ...availability(nodeId),
      ...(e.field ? { state_topic: printerStateTopic(p.id), value_template: `{{ value_json.${e.field} }}` } : { command_topic: printerCommandTopic(p.id) }),
      ...e.extra,
    };
    return { topic: discoveryTopic(e.component, deviceId, e.key), component: e.component, config };
  });
}

/** The farm's totals as a device of their own. */
export function farmDiscovery(nodeId: string, farmName: string): DiscoveryMessage[] {
  const device = { identifiers: [FARM_DEVICE_ID], name: farmName, manufacturer: 'printfarm', model: 'Print farm', sw_version: VERSION };
  return FARM_ENTITIES.map((e) => ({
    topic: discoveryTopic('sensor', FARM_DEVICE_ID, e.key),
    component: 'sensor' as const,
    config: {
      name: e.name,
      unique_id: `${FARM_DEVICE_ID}_${e.key}`,
      device,
      origin: ORIGIN,
      ...availability(nodeId),
      state_topic: FARM_STATE_TOPIC,
      value_template: `{{ value_json.${e.key} }}`,
      state_class: 'measurement',
      icon: e.icon,
    },
  }));
}

/** The topics that remove a deleted printer's entities: an empty retained payload on each config topic. */
export const printerDiscoveryTopics = (printerId: string): string[] =>
  PRINTER_ENTITIES.map((e) => discoveryTopic(e.component, printerDeviceId(printerId), e.key));
