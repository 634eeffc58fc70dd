// The printer behind the Bambu stand-in's broker: a client of Mosquitto as the printer's own firmware is, it answers
// device/<serial>/request (pushall, pause, resume, stop, project_file, gcode_line) and publishes push_status reports
// on device/<serial>/report: the whole object every time (X1) or only what changed (P1/A1, `partial`), AMS trays and
// HMS errors. Files come from its SD card dir (what vsftpd received) and print on the existing virtual printer.
// A sliced .gcode.3mf prints the plate project_file names (read with the files feature's ZIP reader); a plain G-code
// upload prints as it is. With use_ams the first mapped tray is reported as the one in use while the print runs.
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { startsAsZip, ZipArchive } from '../../archive/zip-reader.js';
import { DEFAULT_SIMULATOR_OPTIONS, type SimulatorOptions } from '../simulator-options.js';
import { VirtualPrinter } from '../virtual-printer.js';
import { VirtualPrintHost, type HostState } from '../prusalink/virtual-print-host.js';

export interface VirtualBambuOptions {
  brokerPort: number;
  serial: string;
  accessCode: string;
  sdcard: string;
  /** P1/A1: only changed fields in each report (a full one after pushall); X1 (false): every field every time. */
  partial: boolean;
  /** What get_version names the product (default "Bambu Lab P1S": the model its reports and slices stand for). */
  productName?: string;
  /** A report every this many ms (default 500). */
  reportMs?: number;
  simulator?: Partial<SimulatorOptions>;
}

export interface AmsTraySetup {
  type: string;
  /** RRGGBB */
  color: string;
  remain: number;
}

const GCODE_STATE: Record<HostState, string> = {
  IDLE: 'IDLE',
  PRINTING: 'RUNNING',
  BUSY: 'RUNNING',
  PAUSED: 'PAUSE',
  FINISHED: 'FINISH',
  STOPPED: 'FAILED',
  ERROR: 'FAILED',
};

export class VirtualBambu {
  readonly printer: VirtualPrinter;
  readonly host: VirtualPrintHost;
  /** Every request received, parsed (tests read the project_file fields from here). */
  readonly requests: Array<Record<string, Record<string, unknown>>> = [];
  trays: AmsTraySetup[] = [
    { type: 'PLA', color: 'FF0000', remain: 90 },
    { type: 'PLA', color: '000000', remain: 50 },
    { type: 'PETG', color: 'FFFFFF', remain: -1 },
    { type: 'PLA', color: '00AA00', remain: 10 },
  ];
  hms: Array<{ attr: number; code: number }> = [];
  printError = 0;
  private client: MqttClient | null = null;
  private timer: NodeJS.Timeout | null = null;
  private sent: Record<string, string> = {};
  private fileName = '';
  private taskName = '';
  private totalLayers = 0;
  /** The tray project_file mapped first (255: none), reported as in use while printing. */
  private trayNow = 255;

  constructor(private readonly o: VirtualBambuOptions) {
    this.printer = new VirtualPrinter({ ...DEFAULT_SIMULATOR_OPTIONS, profile: 'marlin', baud: 0, record: false, ...o.simulator });
    this.host = new VirtualPrintHost(this.printer);
  }

  private get topic(): string {
    return `device/${this.o.serial}`;
  }

  /** Connects to the broker (and again whenever it comes back) and starts reporting. */
  async start(): Promise<void> {
    const client = mqtt.connect({
      host: '127.0.0.1',
      port: this.o.brokerPort,
      protocol: 'mqtts',
      username: 'bblp',
      password: this.o.accessCode,
      // The printer is its broker's own client on the same box: no certificate to check.
      rejectUnauthorized: false,
      reconnectPeriod: 100,
      clientId: `printer-${this.o.serial}`,
    });
    this.client = client;
    client.on('message', (_topic, payload) => this.request(payload));
    client.on('connect', () => {
      client.subscribe(`${this.topic}/request`, { qos: 1 });
      this.sent = {};
    });
    client.on('error', () => undefined);
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    this.timer = setInterval(() => this.report(false), this.o.reportMs ?? 500);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.client?.endAsync(true);
    this.host.close();
    this.printer.close();
  }

  /** A print started on the printer's screen: a file on its card we did not upload, fed from `tray` (255: none). */
  startExternalPrint(name: string, content: Buffer, tray = 255): void {
    this.trayNow = tray;
    this.begin(name, name.replace(/\.gcode(\.3mf)?$/, ''), content);
  }

  /** The print object as the firmware knows it now. */
  state(): Record<string, unknown> {
    const t = this.printer.temperatures();
    const job = this.host.job;
    const progress = Math.floor(this.host.progress());
    const printingMs = this.host.printingMs();
    const remainingMin = progress > 0 ? Math.round((printingMs * (100 - progress)) / progress / 60_000) : 0;
    return {
      gcode_state: job ? GCODE_STATE[this.host.state] : 'IDLE',
      mc_percent: job ? (this.host.state === 'FINISHED' ? 100 : progress) : 0,
      mc_remaining_time: job && this.host.state !== 'FINISHED' ? remainingMin : 0,
      layer_num: this.totalLayers > 0 ? Math.round((progress / 100) * this.totalLayers) : 0,
      total_layer_num: this.totalLayers,
      gcode_file: this.fileName,
      subtask_name: this.taskName,
      nozzle_temper: round1(t.hotend),
      nozzle_target_temper: t.hotendTarget,
      bed_temper: round1(t.bed),
      bed_target_temper: t.bedTarget,
      cooling_fan_speed: '0',
      big_fan1_speed: '0',
      heatbreak_fan_speed: '0',
      print_error: this.printError,
      hms: this.hms.map((h) => ({ ...h })),
      ams: {
        ams: [{ id: '0', humidity: '4', temp: '24.0', tray: this.trays.map((tr, i) => ({ id: String(i), tray_type: tr.type, tray_color: `${tr.color}FF`, remain: tr.remain })) }],
        tray_now: String(job && (this.host.state === 'PRINTING' || this.host.state === 'PAUSED') ? this.trayNow : 255),
      },
    };
  }

  /** Publishes a report: everything (full, or an X1), or only the fields changed since the last one (P1/A1). */
  report(full: boolean): void {
    const c = this.client;
    if (!c?.connected) return;
    const s = this.state();
    const whole = full || !this.o.partial;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s)) {
      const text = JSON.stringify(v);
      if (whole || this.sent[k] !== text) out[k] = v;
      this.sent[k] = text;
    }
    if (!whole && Object.keys(out).length === 0) return;
    c.publish(`${this.topic}/report`, JSON.stringify({ print: { command: 'push_status', msg: whole ? 0 : 1, sequence_id: '0', ...out } }));
  }

  private answer(type: string, body: Record<string, unknown>, result: 'success' | 'fail', reason = ''): void {
    this.client?.publish(`${this.topic}/report`, JSON.stringify({ [type]: { command: body.command, sequence_id: body.sequence_id, result, reason } }));
  }

  private request(payload: Buffer): void {
    let msg: Record<string, Record<string, unknown>>;
    try {
      msg = JSON.parse(payload.toString('utf8'));
    } catch {
      return;
    }
    this.requests.push(msg);
    if (msg.pushing?.command === 'pushall') {
      this.report(true);
      return;
    }
    if (msg.info?.command === 'get_version') {
      this.client?.publish(`${this.topic}/report`, JSON.stringify({ info: { command: 'get_version', sequence_id: msg.info.sequence_id, module: [{ name: 'ota', sw_ver: '01.08.00.00', sn: this.o.serial, product_name: this.o.productName ?? 'Bambu Lab P1S' }] } }));
      return;
    }
    const p = msg.print;
    if (!p) return;
    const busy = this.host.state === 'PRINTING' || this.host.state === 'PAUSED';
    switch (p.command) {
      case 'pause':
        this.host.pause();
        return this.done('print', p);
      case 'resume':
        this.host.resume();
        return this.done('print', p);
      case 'stop':
        this.host.stop();
        return this.done('print', p);
      case 'gcode_line':
        if (busy) return this.answer('print', p, 'fail', 'printing');
        this.printer.hostWrite(String(p.param ?? ''));
        return this.answer('print', p, 'success');
      case 'project_file':
        if (busy) return this.answer('print', p, 'fail', 'printing');
        void this.projectFile(p);
        return;
    }
  }

  private done(type: string, p: Record<string, unknown>): void {
    this.answer(type, p, 'success');
    this.report(false);
  }

  private async projectFile(p: Record<string, unknown>): Promise<void> {
    const url = String(p.url ?? '');
    const name = basename(url.replace(/^file:\/\/\/sdcard\//, '').replace(/^ftp:\/\//, ''));
    let content: Buffer;
    try {
      content = await readFile(join(this.o.sdcard, name));
    } catch {
      return this.answer('print', p, 'fail', `no file ${name} on the SD card`);
    }
    if (startsAsZip(content)) {
      const plate = await plateOf(join(this.o.sdcard, name), String(p.param ?? ''));
      if (typeof plate === 'string') return this.answer('print', p, 'fail', plate);
      content = plate;
    }
    const mapping = Array.isArray(p.ams_mapping) ? (p.ams_mapping as unknown[]).filter((t): t is number => typeof t === 'number' && t >= 0) : [];
    this.trayNow = p.use_ams === true && mapping.length > 0 ? mapping[0]! : 255;
    this.begin(name, String(p.subtask_name ?? name), content);
    this.answer('print', p, 'success');
  }

  private begin(name: string, task: string, content: Buffer): void {
    this.fileName = name;
    this.taskName = task;
    this.totalLayers = (content.toString('latin1').match(/^;\s*(LAYER_CHANGE|LAYER:)/gm) ?? []).length;
    this.host.start(name, content);
    this.report(false);
  }
}

/** The G-code of the plate `param` names inside a 3MF, or why it cannot be printed. */
async function plateOf(path: string, param: string): Promise<Buffer | string> {
  let zip: ZipArchive;
  try {
    zip = await ZipArchive.open(path);
  } catch (err) {
    return `not a readable 3MF: ${(err as Error).message}`;
  }
  try {
    const entry = zip.entries.get(param);
    if (!entry) return `the 3MF has no ${param || 'plate'}`;
    return await zip.read(entry, 512 * 1024 * 1024);
  } catch (err) {
    return `the plate cannot be read: ${(err as Error).message}`;
  } finally {
    await zip.close();
  }
}

const round1 = (n: number): number => Math.round(n * 10) / 10;
