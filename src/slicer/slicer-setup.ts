// What to type into each slicer to send to this farm, made from the address the browser reached it at and a new key:
// the dashboard shows these values with copy buttons, so the words live here once. Pure.

export interface SetupEntry {
  slicer: string;
  host_type: string;
  fields: { label: string; value: string }[];
  note: string;
}

export interface SetupInput {
  /** e.g. http://farm.local:8080 */
  origin: string;
  key: string;
  /** The key's display prefix: the Digest user name. */
  prefix: string;
}

const FOLDERS = 'Folders pick where it prints: group/<group>/, printer/<name>/, x3/ for three copies, urgent/ (any order).';
const BUTTONS = '"Upload and Print" queues the job; "Upload" only stores the file (queue it later from the dashboard\'s Files).';

export function slicerSetup({ origin, key, prefix }: SetupInput): SetupEntry[] {
  const url = new URL(origin);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return [
    {
      slicer: 'PrusaSlicer 2.6+ / OrcaSlicer',
      host_type: 'PrusaLink',
      fields: [
        { label: 'Host Type', value: 'PrusaLink' },
        { label: 'Hostname, IP or URL', value: origin },
        { label: 'Authorization Type', value: 'API key' },
        { label: 'API Key / Password', value: key },
      ],
      note: `${BUTTONS} "Upload to storage" lists the farm's groups and printers.`,
    },
    {
      slicer: 'PrusaSlicer (any version, Debian\'s 2.5 too)',
      host_type: 'PrusaLink, user and password',
      fields: [
        { label: 'Host Type', value: 'PrusaLink' },
        { label: 'Hostname, IP or URL', value: origin },
        { label: 'Authorization Type', value: 'HTTP digest' },
        { label: 'User', value: prefix },
        { label: 'Password', value: key },
      ],
      note: `${BUTTONS} ${FOLDERS} Type them before the file name in the upload dialog.`,
    },
    {
      slicer: 'PrusaSlicer / OrcaSlicer',
      host_type: 'OctoPrint (Orca: Octo/Klipper)',
      fields: [
        { label: 'Host Type', value: 'OctoPrint' },
        { label: 'Hostname, IP or URL', value: origin },
        { label: 'API Key / Password', value: key },
      ],
      note: `${BUTTONS} ${FOLDERS}`,
    },
    {
      slicer: 'OrcaSlicer / PrusaSlicer',
      host_type: 'Moonraker',
      fields: [
        { label: 'Host Type', value: 'Moonraker' },
        { label: 'Hostname, IP or URL', value: origin },
        { label: 'API Key', value: key },
      ],
      note: `${BUTTONS} OrcaSlicer drops typed folders for Moonraker: pick a group or printer in its storage list instead.`,
    },
    {
      slicer: 'Cura',
      host_type: 'OctoPrint Connection plugin',
      fields: [
        { label: 'IP Address or hostname', value: url.hostname },
        { label: 'Port number', value: port },
        { label: 'Path', value: '/' },
        { label: 'Use HTTPS', value: url.protocol === 'https:' ? 'on' : 'off' },
        { label: 'API Key', value: key },
      ],
      note: `"Print with OctoPrint" queues the job (with "Start print job after uploading" on, the default). ${FOLDERS} Set the folder in the plugin's upload options.`,
    },
    {
      slicer: 'Cura',
      host_type: 'Moonraker plugin (Cura2Moonraker)',
      fields: [
        { label: 'URL', value: `${origin}/` },
        { label: 'API Key', value: key },
      ],
      note: `"Start print" queues the job; without it the file is only stored. ${FOLDERS}`,
    },
  ];
}
