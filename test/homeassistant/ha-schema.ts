// Home Assistant's documented MQTT discovery schema for the entity types the farm uses (sensor, binary_sensor,
// button), written from its docs and the device-class lists of home-assistant/core: returns every problem found.

const COMMON = [
  'name', 'unique_id', 'device', 'origin', 'availability_topic', 'payload_available', 'payload_not_available', 'availability',
  'availability_mode', 'icon', 'entity_category', 'enabled_by_default', 'qos', 'json_attributes_topic', 'json_attributes_template',
  'default_entity_id', 'entity_picture', 'encoding', 'availability_template',
];
const KEYS: Record<string, string[]> = {
  sensor: [...COMMON, 'state_topic', 'value_template', 'device_class', 'unit_of_measurement', 'state_class', 'options', 'expire_after', 'force_update', 'suggested_display_precision', 'last_reset_value_template'],
  binary_sensor: [...COMMON, 'state_topic', 'value_template', 'device_class', 'payload_on', 'payload_off', 'expire_after', 'force_update', 'off_delay'],
  button: [...COMMON, 'command_topic', 'command_template', 'payload_press', 'device_class', 'retain'],
};
const REQUIRED: Record<string, string[]> = { sensor: ['state_topic'], binary_sensor: ['state_topic'], button: ['command_topic'] };

const SENSOR_CLASSES = [
  'absolute_humidity', 'apparent_power', 'aqi', 'area', 'atmospheric_pressure', 'battery', 'blood_glucose_concentration', 'carbon_dioxide', 'carbon_monoxide',
  'conductivity', 'current', 'data_rate', 'data_size', 'date', 'distance', 'duration', 'energy', 'energy_distance', 'energy_storage', 'enum',
  'frequency', 'gas', 'humidity', 'illuminance', 'irradiance', 'moisture', 'monetary', 'nitrogen_dioxide', 'nitrogen_monoxide', 'nitrous_oxide',
  'ozone', 'ph', 'pm1', 'pm10', 'pm25', 'power_factor', 'power', 'precipitation', 'precipitation_intensity', 'pressure', 'reactive_energy',
  'reactive_power', 'signal_strength', 'sound_pressure', 'speed', 'sulphur_dioxide', 'temperature', 'timestamp', 'volatile_organic_compounds',
  'volatile_organic_compounds_parts', 'voltage', 'volume', 'volume_storage', 'volume_flow_rate', 'water', 'weight', 'wind_direction', 'wind_speed',
];
const BINARY_CLASSES = [
  'battery', 'battery_charging', 'carbon_monoxide', 'cold', 'connectivity', 'door', 'garage_door', 'gas', 'heat', 'light', 'lock', 'moisture',
  'motion', 'moving', 'occupancy', 'opening', 'plug', 'power', 'presence', 'problem', 'running', 'safety', 'smoke', 'sound', 'tamper', 'update',
  'vibration', 'window',
];
const BUTTON_CLASSES = ['identify', 'restart', 'update'];
const CLASSES: Record<string, string[]> = { sensor: SENSOR_CLASSES, binary_sensor: BINARY_CLASSES, button: BUTTON_CLASSES };
/** Units a sensor of these classes may have (the ones the farm could use); absent here: any unit. */
const UNITS: Record<string, string[]> = { temperature: ['°C', '°F', 'K'], duration: ['d', 'h', 'min', 's', 'ms', 'µs'] };
const STATE_CLASSES = ['measurement', 'measurement_angle', 'total', 'total_increasing'];

export interface Discovered {
  topic: string;
  payload: string;
}

/** Problems of one discovery message; `states` maps each retained topic to its payload (a state topic must be in it). */
export function discoveryProblems(msg: Discovered, states: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  const say = (p: string): void => void problems.push(`${msg.topic}: ${p}`);
  const m = /^homeassistant\/(sensor|binary_sensor|button)\/([A-Za-z0-9_-]+)\/([A-Za-z0-9_-]+)\/config$/.exec(msg.topic);
  if (!m) return [`${msg.topic}: not a discovery topic <prefix>/<component>/<node_id>/<object_id>/config of a known component`];
  const component = m[1]!;
  let c: Record<string, unknown>;
  try {
    c = JSON.parse(msg.payload);
  } catch {
    return [`${msg.topic}: payload is not JSON`];
  }
  for (const k of Object.keys(c)) if (!KEYS[component]!.includes(k)) say(`unknown key ${k} for ${component}`);
  for (const k of REQUIRED[component]!) if (typeof c[k] !== 'string' || c[k] === '') say(`missing ${k}`);
  if (typeof c.unique_id !== 'string' || c.unique_id === '') say('missing unique_id (entities of a device need one)');
  const device = c.device as Record<string, unknown> | undefined;
  if (!device || !(Array.isArray(device.identifiers) && device.identifiers.length > 0)) say('device without identifiers');
  if (device && typeof device.name !== 'string') say('device without a name');
  if (c.device_class !== undefined && !CLASSES[component]!.includes(String(c.device_class))) say(`device_class ${String(c.device_class)} is not one of ${component}'s`);
  if (c.entity_category !== undefined && !['diagnostic', 'config'].includes(String(c.entity_category))) say(`entity_category ${String(c.entity_category)}`);
  if (component === 'sensor') {
    if (c.entity_category === 'config') say('a sensor cannot be a config entity');
    const dc = c.device_class as string | undefined;
    const units = dc ? UNITS[dc] : undefined;
    if (units && !units.includes(String(c.unit_of_measurement))) say(`unit ${String(c.unit_of_measurement)} is not one of ${dc}'s (${units.join(', ')})`);
    if (c.state_class !== undefined && !STATE_CLASSES.includes(String(c.state_class))) say(`state_class ${String(c.state_class)}`);
    if (dc === 'enum') {
      if (!Array.isArray(c.options) || c.options.length === 0) say('enum sensor without options');
      if (c.unit_of_measurement !== undefined || c.state_class !== undefined) say('enum sensor with a unit or state_class');
    } else if (c.options !== undefined) say('options on a sensor that is not enum');
  }
  if (typeof c.availability_topic === 'string' && !states.has(c.availability_topic)) say(`availability topic ${c.availability_topic} was never published`);
  if (typeof c.state_topic === 'string') {
    const state = states.get(c.state_topic);
    if (state === undefined) say(`state topic ${c.state_topic} was never published`);
    else {
      const field = /^\{\{ value_json\.([a-z_]+) \}\}$/.exec(String(c.value_template ?? ''))?.[1];
      if (c.value_template !== undefined && field === undefined) say(`value_template ${String(c.value_template)} is not the form this check reads`);
      if (field !== undefined) {
        const value = (JSON.parse(state) as Record<string, unknown>)[field];
        if (!(field in JSON.parse(state))) say(`state on ${c.state_topic} has no field ${field}`);
        else if (component === 'binary_sensor' && value !== (c.payload_on ?? 'ON') && value !== (c.payload_off ?? 'OFF')) say(`binary state ${String(value)} is neither payload_on nor payload_off`);
        else if (c.device_class === 'enum' && value !== null && !(c.options as unknown[]).includes(value)) say(`enum state ${String(value)} is not in options`);
      }
    }
  }
  return problems;
}
