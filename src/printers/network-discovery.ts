// mDNS browses for network printers, kept briefly so a dashboard refresh does not browse again; concurrent asks share one.
import { isoTime, type Clock } from '../clock.js';
import type { MdnsAnswers, MdnsBrowser } from '../transport/mdns-browser.js';
import { NETWORK_KINDS, SERVICE_TYPE_OF } from './network-printers.js';

/** How long a browse listens unless asked otherwise, and the range a caller may ask for. */
export const MDNS_BROWSE_MS = { default: 1_500, min: 200, max: 10_000 } as const;
/** How long a browse's answers are reused. */
export const MDNS_CACHE_MS = 10_000;

export interface BrowseResult extends MdnsAnswers {
  /** How long the browse that found them listened. */
  browse_ms: number;
  /** When that browse ended (ISO 8601). */
  browsed_at: string;
  /** True when the answers come from an earlier browse. */
  cached: boolean;
}

interface Browse {
  ms: number;
  endedAt: number | null;
  answers: Promise<MdnsAnswers>;
}

export class NetworkDiscovery {
  private last: Browse | null = null;

  constructor(private readonly deps: { browser: MdnsBrowser; clock: Clock; cacheMs?: number }) {}

  /**
   * The services of every printer kind on the LAN. A browse in flight or one that ended less than cacheMs ago is
   * reused when it listened at least as long as asked: asking longer means the short one missed something.
   */
  async browse(ms: number): Promise<BrowseResult> {
    const cacheMs = this.deps.cacheMs ?? MDNS_CACHE_MS;
    const last = this.last;
    const fresh = last !== null && last.ms >= ms && (last.endedAt === null || this.deps.clock.now() - last.endedAt < cacheMs);
    const browse = fresh ? last : this.start(ms);
    const answers = await browse.answers;
    return { ...answers, browse_ms: browse.ms, browsed_at: isoTime(browse.endedAt ?? this.deps.clock.now()), cached: browse === last };
  }

  close(): void {
    this.deps.browser.close();
  }

  private start(ms: number): Browse {
    const types = NETWORK_KINDS.map((k) => SERVICE_TYPE_OF[k]);
    const browse: Browse = { ms, endedAt: null, answers: this.deps.browser.browse(types, ms) };
    void browse.answers.then((answers) => {
      browse.endedAt = this.deps.clock.now();
      // A browse that could not use the network is not kept: the next ask tries again.
      if (answers.error !== null && this.last === browse) this.last = null;
    });
    this.last = browse;
    return browse;
  }
}
