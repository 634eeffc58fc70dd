// Wires the Home Assistant bridge to one MQTT connection for the server (--mqtt): started after the farm, stopped
// before it, with a status for GET /v1/homeassistant.
import { HomeAssistantBridge, type HomeAssistantDeps } from './ha-bridge.js';
import { availabilityTopic, COMMAND_SUBSCRIPTIONS, HA_STATUS_TOPIC } from './ha-topics.js';
import { MqttLink, type Backoff, type MqttLinkStatus } from './mqtt-link.js';
import type { MqttTarget } from './mqtt-target.js';
import type { EventBus } from '../events/event-bus.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Db } from '../storage/db.js';
import type { PrintersService } from '../printers/printers.service.js';
import type { SessionRegistry } from '../printers/session-registry.js';
import type { JobsService } from '../jobs/jobs.service.js';
import { runPrinterAction } from '../printers/printer-actions.js';

export interface HomeAssistantSettings {
  target: MqttTarget;
  /** PEM of a private CA for mqtts (--mqtt-ca). */
  ca?: Buffer;
  backoff?: Backoff;
  tickMs?: number;
}

export interface HomeAssistantStatus extends MqttLinkStatus {
  commands_refused: number;
}

export interface HomeAssistantRuntime {
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): HomeAssistantStatus;
}

export function createHomeAssistant(deps: Omit<HomeAssistantDeps, 'tickMs'>, s: HomeAssistantSettings): HomeAssistantRuntime {
  let bridge: HomeAssistantBridge | null = null;
  const availability = availabilityTopic(deps.nodeId);
  const link = new MqttLink({
    target: s.target,
    clientId: `printfarm_${deps.nodeId}`,
    will: { topic: availability, payload: 'offline' },
    ...(s.ca ? { ca: s.ca } : {}),
    subscriptions: [...COMMAND_SUBSCRIPTIONS, HA_STATUS_TOPIC],
    onMessage: (topic, payload) => bridge?.onMessage(topic, payload),
    logger: deps.logger,
    ...(s.backoff ? { backoff: s.backoff } : {}),
    now: () => deps.clock.now(),
  });
  bridge = new HomeAssistantBridge({ ...deps, ...(s.tickMs !== undefined ? { tickMs: s.tickMs } : {}) }, link);
  return {
    async start() {
      // The connection comes up in the background: a broker that is down delays nothing here.
      link.start();
      await bridge!.start();
    },
    async stop() {
      bridge!.stop();
      await link.stop({ topic: availability, payload: 'offline' });
    },
    status: () => ({ ...link.status(), commands_refused: bridge!.refused }),
  };
}

/** What the bridge reads of a running app: the server's deps (and the benchmark's, which starts it later). */
export interface FarmParts {
  bus: EventBus;
  db: Db;
  clock: Clock;
  logger: Logger;
  nodeId: string;
  printers: PrintersService;
  sessions: SessionRegistry;
  jobs: Pick<JobsService, 'get'>;
}

/** The bridge over the farm's own reads, with the checks of the API's printer actions. */
export function homeAssistantFor(f: FarmParts, settings: HomeAssistantSettings): HomeAssistantRuntime {
  return createHomeAssistant(
    {
      bus: f.bus,
      db: f.db,
      clock: f.clock,
      logger: f.logger,
      nodeId: f.nodeId,
      ownPrinters: () => f.printers.listOwn(),
      printer: (id) => f.printers.get(id),
      snapshot: (id) => f.sessions.get(id)?.snapshot() ?? null,
      job: (id) => f.jobs.get(id),
      runAction: (id, action) => runPrinterAction(f.printers, id, action),
    },
    settings,
  );
}
