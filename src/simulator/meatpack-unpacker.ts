// The firmware's MeatPack unpacker, as Marlin describes it: raw bytes in (after the RX buffer), characters out to the line reader.
// Written apart from the host's packer (src/protocol/meatpack.ts) on purpose: the simulator checks the packer, so it
// must not share its tables or rules.

/** Codes 0..14 read as these characters; code 11 reads 'E' in no-spaces mode. 15 means "a literal byte follows". */
const TABLE = '0123456789. \nGX';

export interface MeatPackState {
  active: boolean;
  noSpaces: boolean;
}

export class MeatPackUnpacker {
  readonly state: MeatPackState = { active: false, noSpaces: false };
  /** 0xFF bytes seen in a row (two make a command signal). */
  private signal = 0;
  private commandNext = false;
  /** Literal bytes still to come for the current packed byte. */
  private literals = 0;
  /** The packed second character, held until the literal first character has come. */
  private held = '';

  constructor(private readonly report: (state: MeatPackState) => void) {}

  /** Between the two signal bytes and the command byte (the fault injector spares those). */
  get inSignal(): boolean {
    return this.signal > 0 || this.commandNext;
  }

  /** After a reset: packing off, spaces kept. */
  reset(): void {
    this.state.active = false;
    this.state.noSpaces = false;
    this.signal = 0;
    this.commandNext = false;
    this.literals = 0;
    this.held = '';
  }

  /** One raw byte; returns the characters it completes ('' for none). */
  push(b: number): string {
    if (b === 0xff) {
      if (this.signal === 1) {
        this.signal = 0;
        this.commandNext = true;
      } else this.signal = 1;
      return '';
    }
    if (this.commandNext) {
      this.commandNext = false;
      this.command(b);
      return '';
    }
    let out = '';
    if (this.signal === 1) {
      // A single 0xFF was data: "both characters are literals".
      this.signal = 0;
      out = this.data(0xff);
    }
    return out + this.data(b);
  }

  private data(b: number): string {
    if (!this.state.active) return String.fromCharCode(b);
    if (this.literals > 0) {
      this.literals--;
      let out = String.fromCharCode(b);
      if (this.held !== '') {
        out += this.held;
        this.held = '';
      }
      return out;
    }
    const lo = b & 0x0f;
    const hi = b >> 4;
    if (lo === 0x0f) {
      this.literals = hi === 0x0f ? 2 : 1;
      if (hi !== 0x0f) this.held = this.char(hi);
      return '';
    }
    const first = this.char(lo);
    // After a newline the rest of the byte is padding.
    if (first === '\n') return first;
    if (hi === 0x0f) {
      this.literals = 1;
      return first;
    }
    return first + this.char(hi);
  }

  private char(code: number): string {
    return code === 11 && this.state.noSpaces ? 'E' : TABLE[code]!;
  }

  private command(c: number): void {
    switch (c) {
      case 0xfb:
        this.state.active = true;
        break;
      case 0xfa:
        this.state.active = false;
        break;
      case 0xfd:
        this.state.active = !this.state.active;
        break;
      case 0xf9:
        this.reset();
        break;
      case 0xf7:
        this.state.noSpaces = true;
        break;
      case 0xf6:
        this.state.noSpaces = false;
        break;
      default:
        // Query (0xF8) and unknown commands change nothing; the state is reported all the same.
        break;
    }
    this.report({ ...this.state });
  }
}

/** `[MP] PV01 ON NSP`: the report line Marlin prints after each MeatPack command. */
export function meatpackReportLine(s: MeatPackState): string {
  return `[MP] PV01 ${s.active ? 'ON' : 'OFF'} ${s.noSpaces ? 'NSP' : 'ESP'}`;
}
