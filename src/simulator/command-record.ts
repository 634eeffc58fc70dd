// What a virtual printer executed: every command when a test asks for it, else only the last few in a fixed ring, so a
// demo farm or a benchmark left printing for days keeps a constant footprint.

/** Commands kept when the full record is off: enough to read the tail of a run while debugging. */
export const RECENT_COMMANDS = 256;

export class CommandRecord {
  private readonly lines: string[] = [];
  /** Ring mode: the index of the oldest kept command once the ring is full. */
  private head = 0;

  /** `all` keeps every command; otherwise at most `ringSize`, the newest. */
  constructor(
    private readonly all: boolean,
    private readonly ringSize = RECENT_COMMANDS,
  ) {}

  add(text: string): void {
    if (this.all || this.lines.length < this.ringSize) {
      this.lines.push(text);
      return;
    }
    this.lines[this.head] = text;
    this.head = (this.head + 1) % this.ringSize;
  }

  /** The kept commands, oldest first. */
  list(): string[] {
    if (this.head === 0) return this.lines;
    return [...this.lines.slice(this.head), ...this.lines.slice(0, this.head)];
  }
}
