// The requests we publish on device/<serial>/request, as the printer expects them. Pure: the sequence id is handed in.
export type BambuRequest = Record<string, Record<string, unknown>>;

export const pushAll = (seq: number): BambuRequest => ({ pushing: { sequence_id: String(seq), command: 'pushall' } });

export const getVersion = (seq: number): BambuRequest => ({ info: { sequence_id: String(seq), command: 'get_version' } });

export const printAction = (seq: number, command: 'pause' | 'resume' | 'stop'): BambuRequest => ({
  print: { sequence_id: String(seq), command, param: '' },
});

/** G-code lines run by the printer at once (several joined by newlines). */
export const gcodeLine = (seq: number, lines: string): BambuRequest => ({
  print: { sequence_id: String(seq), command: 'gcode_line', param: lines.endsWith('\n') ? lines : `${lines}\n` },
});

export interface ProjectStart {
  /** The uploaded file's name at the root of the SD card. */
  fileName: string;
  /** The plate to print (1-based); a 3MF holds Metadata/plate_<n>.gcode. */
  plate: number;
  /** The plate's G-code path inside the 3MF when the file record names it (else Metadata/plate_<plate>.gcode). */
  plateGcode?: string;
  taskName: string;
  useAms: boolean;
  /** For each filament of the slice, the global tray index (unit * 4 + tray), 254 the external spool. */
  amsMapping: number[];
  bedLevelling: boolean;
  timelapse: boolean;
  flowCalibration?: boolean;
  md5?: string;
}

/** project_file: print a plate of a file uploaded over FTPS (LAN prints: the cloud ids are all "0"). */
export function projectFile(seq: number, s: ProjectStart): BambuRequest {
  return {
    print: {
      sequence_id: String(seq),
      command: 'project_file',
      param: s.plateGcode ?? `Metadata/plate_${s.plate}.gcode`,
      url: `file:///sdcard/${s.fileName}`,
      file: s.fileName,
      md5: s.md5 ?? '',
      subtask_name: s.taskName,
      project_id: '0',
      profile_id: '0',
      task_id: '0',
      subtask_id: '0',
      bed_type: 'auto',
      timelapse: s.timelapse,
      // The notes spell it both ways across firmware: both are sent.
      bed_levelling: s.bedLevelling,
      bed_leveling: s.bedLevelling,
      flow_cali: s.flowCalibration ?? false,
      vibration_cali: false,
      layer_inspect: false,
      use_ams: s.useAms,
      ams_mapping: s.amsMapping,
    },
  };
}
