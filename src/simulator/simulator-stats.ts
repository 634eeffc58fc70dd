// Counters a virtual printer keeps for tests and the benchmark: link losses, errors, resends, oks and planner starvation.

export interface SimulatorStats {
  /** Bytes that reached the firmware's receive buffer. */
  bytesReceived: number;
  /** Bytes that arrived while the receive buffer was full and were lost. */
  bytesLostOverflow: number;
  /** Bytes flushed from the receive buffer after a bad line, or ignored while booting or halted. */
  bytesDiscarded: number;
  bytesCorrupted: number;
  /** Bytes corrupted by packed_error_rate as the firmware unpacked them. */
  packedBytesCorrupted: number;
  bytesLostOnWire: number;
  bytesSent: number;
  linesReceived: number;
  checksumErrors: number;
  sequenceErrors: number;
  resendsRequested: number;
  duplicatesSkipped: number;
  oksSent: number;
  oksDropped: number;
  /** Simulated ms the planner stood empty between two moves with no deliberate wait (G4, M109, ...) between. */
  starvationMs: number;
  starvationEvents: number;
}

export const zeroStats = (): SimulatorStats => ({
  bytesReceived: 0,
  bytesLostOverflow: 0,
  bytesDiscarded: 0,
  bytesCorrupted: 0,
  packedBytesCorrupted: 0,
  bytesLostOnWire: 0,
  bytesSent: 0,
  linesReceived: 0,
  checksumErrors: 0,
  sequenceErrors: 0,
  resendsRequested: 0,
  duplicatesSkipped: 0,
  oksSent: 0,
  oksDropped: 0,
  starvationMs: 0,
  starvationEvents: 0,
});
