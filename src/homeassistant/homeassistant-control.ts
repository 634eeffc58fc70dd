// Which broker the farm publishes to, and switching it: the --mqtt flag when given (it wins), else the one set on the
// settings page, started again whenever that changes. One bridge runs at a time.
import type { Logger } from '../logger.js';
import type { HomeAssistantRuntime, HomeAssistantSettings, HomeAssistantStatus } from './homeassistant-runtime.js';

export type BrokerSource = 'flag' | 'settings' | null;

export interface HomeAssistantControlDeps {
  /** The --mqtt broker, or null. */
  flag: HomeAssistantSettings | null;
  /** The broker stored in the settings, or null (read at start and on every change). */
  stored: () => Promise<Pick<HomeAssistantSettings, 'target' | 'ca'> | null>;
  /** Tuning the tests give (back-off, tick), applied to either source. */
  tuning?: Pick<HomeAssistantSettings, 'backoff' | 'tickMs'>;
  make: (settings: HomeAssistantSettings) => HomeAssistantRuntime;
  logger: Logger;
}

export class HomeAssistantControl {
  private current: HomeAssistantRuntime | null = null;
  private from: BrokerSource = null;
  private running = false;
  /** Start, stop and reload one after another: a save while starting must not leave two bridges. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly d: HomeAssistantControlDeps) {}

  get source(): BrokerSource {
    return this.from;
  }

  /** The connection's status, or null when the farm publishes to no broker. */
  status(): HomeAssistantStatus | null {
    return this.current?.status() ?? null;
  }

  start(): Promise<void> {
    this.running = true;
    return this.serial(() => this.open());
  }

  /** The stored broker changed: the bridge starts again on it (nothing changes while --mqtt is in force). */
  reload(): Promise<void> {
    return this.serial(async () => {
      if (!this.running || this.d.flag) return;
      await this.close();
      await this.open();
    });
  }

  stop(): Promise<void> {
    this.running = false;
    return this.serial(() => this.close());
  }

  private serial(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async open(): Promise<void> {
    let settings: HomeAssistantSettings | null = this.d.flag;
    this.from = settings ? 'flag' : null;
    if (!settings) {
      const stored = await this.d.stored().catch((err: Error) => {
        this.d.logger.error('mqtt: could not read the broker settings', { error: err });
        return null;
      });
      if (stored) {
        settings = stored;
        this.from = 'settings';
      }
    }
    if (!settings) return;
    this.current = this.d.make({ ...settings, ...this.d.tuning });
    await this.current.start();
  }

  private async close(): Promise<void> {
    const c = this.current;
    this.current = null;
    this.from = null;
    await c?.stop();
  }
}
