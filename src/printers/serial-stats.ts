// The printer record's `serial` extension: the link's protocol counters (ProtocolStats) under API names, when it connected, its baud.
import { Type, type Static } from '@sinclair/typebox';
import { isoTime } from '../clock.js';
import type { ProtocolStats } from '../protocol/protocol-types.js';

const count = (description: string) => Type.Integer({ minimum: 0, description });

export const SerialStatsSchema = Type.Object(
  {
    connected_since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the current link was identified (handshake done); null while the printer is not connected.',
    }),
    baud_rate: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'Line rate of the last identified link in bit/s (serial ports, simulated serial lines); null for links without one (TCP) or before the first connection.',
    }),
    lines_sent: count('Numbered lines written for the first time (commands and job lines; replays are lines_resent).'),
    lines_acked: count('Lines the firmware acknowledged with ok.'),
    bytes_written: count('Bytes written to the link, replays included.'),
    resends: count('Resend requests the firmware sent (it got a line with a bad checksum or number): the link-quality figure.'),
    lines_resent: count('Lines written again to answer resend requests or a timeout.'),
    timeouts: count('Times an expected ok did not arrive in time (the host then pokes the printer or, after several, gives up).'),
    errors: count('Error lines of the firmware about a command or itself (unknown command, halted, thermal runaway); the complaints that come with a resend request count in resends.'),
    spurious_oks: count('oks that matched no line in flight (ignored).'),
  },
  {
    description:
      'Extension: statistics of the serial link. The counters cover the current link since it was identified (the last link while offline) and start again at each connection; null until the session first opened a link.',
  },
);
export type SerialStats = Static<typeof SerialStatsSchema>;

/** What serialStatsOf reads of a printer session. */
export interface SerialStatsSource {
  stats(): ProtocolStats | null;
  linkInfo(): { connectedAt: number | null; baudRate: number | null };
}

/** The session's counters under their API names; null when it never opened a link (no counters yet). */
export function serialStatsOf(session: SerialStatsSource | undefined): SerialStats | null {
  const s = session?.stats() ?? null;
  if (!session || s === null) return null;
  const link = session.linkInfo();
  return {
    connected_since: link.connectedAt === null ? null : isoTime(link.connectedAt),
    baud_rate: link.baudRate,
    lines_sent: s.linesSent,
    lines_acked: s.linesAcked,
    bytes_written: s.bytesWritten,
    resends: s.resends,
    lines_resent: s.linesResent,
    timeouts: s.timeouts,
    errors: s.firmwareErrors,
    spurious_oks: s.spuriousOks,
  };
}
