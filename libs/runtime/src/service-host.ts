import { randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { readCustomModels, readSchemas } from '@strata/schemas';
import { createEntityRegistry, UNKNOWN_ACTOR_URN, withCustomModels, type EntityRegistry } from '@strata/model';
import { createEventSerde, topicNamesFrom, type EventSerde, type TopicNames } from '@strata/events';
import {
  createHttpApp,
  listen,
  type AccessLogLevel,
  type AnyRoute,
  type Authenticator,
  type ConsoleAssets,
  type RouteGuard,
  type RunnableService,
  type RunningServer,
} from '@strata/http';
import { systemScheduler, type Scheduler } from '@strata/timing';
import { Engines, type EngineSettings } from './engines';
import { Lifecycle, type LifecycleScope } from './lifecycle';
import type { StrataService } from './strata-service';
import { STRATA_VERSION } from './version';

/** The configuration keys of the log's topic names (`topicConfig` of `@strata/config`). */
type TopicSettings = Parameters<typeof topicNamesFrom>[0];

/** What every process reads: where to listen, how much to log, which engines to use, and the log's topics. */
export interface HostSettings extends EngineSettings, TopicSettings {
  readonly HOST: string;
  readonly PORT: number;
  readonly LOG_LEVEL: string;
  /** How much the access log says (`ACCESS_LOG_LEVEL` of `listenerConfig`). Default `info`. */
  readonly ACCESS_LOG_LEVEL?: AccessLogLevel;
  /** An operator's own models, loaded beside the built-in ones (`docs/custom-models.md`). */
  readonly CUSTOM_MODELS_DIR?: string | undefined;
}

/** The model every service of a process shares: the entity registry, the log's records, the topic names. */
export interface SharedModel {
  readonly registry: EntityRegistry;
  readonly serde: EventSerde;
  readonly topics: TopicNames;
}

/** What a process's composition gets to build its services with. */
export interface HostContext {
  /** Registers what is opened, for stopping in reverse (and unwinding a failed start). */
  readonly scope: LifecycleScope;
  readonly engines: Engines;
  readonly model: SharedModel;
  readonly logger: Logger;
  readonly scheduler: Scheduler;
  /** The port the process listens on. Known once its HTTP server listens, before any service starts. */
  port(): number;
}

/** The services a process runs, and how it serves them. */
export interface HostedServices {
  /** Started in this order once the HTTP server listens; stopped in reverse after it closed. */
  readonly services: readonly StrataService[];
  /**
   * Groups of {@link services} that start together, group after group (default: one by one, in order). Services that
   * do not need each other started start faster together — on Kafka, joining a consumer group takes seconds.
   */
  readonly startTogether?: readonly (readonly StrataService[])[];
  /** The routes the process serves. Default: every service's routes. */
  readonly routes?: readonly AnyRoute[];
  /** The service this process tells a gateway about (`/internal/service`): set when one service runs alone. */
  readonly serviceTableOf?: StrataService;
  /** Serve generated documentation of every route (the public front does). */
  readonly documented?: boolean;
  /** The built console, served to browsers (the public front does, when it is built). */
  readonly console?: ConsoleAssets | undefined;
  /** Largest JSON body a route handled here accepts, in bytes. */
  readonly maxBodyBytes: number;
  /** Who each request acts as (the public front authenticates); absent, every request is anonymous. */
  readonly authenticate?: Authenticator;
  /** What each request's caller may do, checked before the route runs (the public front authorizes). */
  readonly guard?: RouteGuard;
}

/**
 * Runs a Strata process — one service alone, or several composed — the same way for every process: open the engines
 * and build the services (`compose`), listen (health answering 503), start the services in order, then answer 200 on
 * `/health` and log `<name> is ready` with the port. Stopping (SIGTERM) turns health to 503, lets in-flight requests
 * finish, stops the services in reverse order, then closes the engines. A start that fails at any point undoes what
 * it had done, so nothing is left running, listening or locked.
 */
export function hostServices(
  name: string,
  settings: HostSettings,
  compose: (context: HostContext) => Promise<HostedServices>,
): RunnableService {
  const logger = pino({ level: settings.LOG_LEVEL, base: { service: name } });
  const engines = new Engines(settings, logger);
  const customModels = settings.CUSTOM_MODELS_DIR;
  const schemas =
    customModels === undefined ? readSchemas() : withCustomModels(readSchemas(), readCustomModels(customModels));
  const model: SharedModel = {
    registry: createEntityRegistry(schemas),
    serde: createEventSerde(schemas),
    topics: topicNamesFrom(settings),
  };
  const lifecycle = new Lifecycle(logger);
  let server: RunningServer | undefined;
  let ready = false;
  return {
    async start() {
      await lifecycle.start(async (scope) => {
        const hosted = await compose({
          scope,
          engines,
          model,
          logger,
          scheduler: systemScheduler,
          port: () => {
            if (server === undefined) throw new Error(`${name}: the port is known once the HTTP server listens`);
            return server.port;
          },
        });
        const table = hosted.serviceTableOf;
        const app = createHttpApp({
          routes: hosted.routes ?? hosted.services.flatMap((service) => service.routes),
          newId: randomUUID,
          anonymousActor: UNKNOWN_ACTOR_URN,
          maxBodyBytes: hosted.maxBodyBytes,
          ...(hosted.authenticate === undefined ? {} : { authenticate: hosted.authenticate }),
          ...(hosted.guard === undefined ? {} : { guard: hosted.guard }),
          logger,
          // On the process's stdout with every other line; a test harness reading it looks for the ready line only.
          accessLog: { logger, level: settings.ACCESS_LOG_LEVEL ?? 'info' },
          isReady: () => ready,
          metrics: hosted.services.flatMap((service) => service.metrics),
          ...(hosted.console === undefined ? {} : { console: hosted.console }),
          ...(table === undefined ? {} : { serviceTable: { service: table.name, readModels: table.readModels } }),
          ...(hosted.documented === true
            ? {
                documentation: {
                  title: 'Strata metadata service',
                  version: STRATA_VERSION,
                  description:
                    "The REST interface of DataHub's metadata service (GMS), served by Strata: every route this process answers.",
                },
              }
            : {}),
        });
        const listening = await scope.open(
          'HTTP server',
          () => listen(app, settings.HOST, settings.PORT),
          (running) => running.close(),
        );
        server = listening;
        for (const group of startGroups(hosted)) {
          // Every start of a group settles before a failure unwinds the lot, so none is left starting.
          const started = await Promise.allSettled(group.map((service) => scope.start(service.name, service)));
          const failed = started.find((result) => result.status === 'rejected');
          if (failed !== undefined) throw failed.reason;
        }
        // Registered last, so stopped first: no new work is taken while the services stop.
        await scope.open(
          'HTTP readiness',
          () => {
            ready = true;
          },
          () => {
            ready = false;
            return listening.close();
          },
        );
        logger.info(
          { host: settings.HOST, port: listening.port, dataDir: settings.DATA_DIR, ...engines.choice() },
          `${name} is ready`,
        );
      });
    },
    async stop() {
      await lifecycle.stop();
      logger.info(`${name} stopped`);
    },
  };
}

/** The groups the services start in: as given (each service exactly once), or one by one. */
function startGroups(hosted: HostedServices): readonly (readonly StrataService[])[] {
  const groups = hosted.startTogether ?? hosted.services.map((service) => [service]);
  const grouped = groups.flat();
  if (grouped.length !== hosted.services.length || hosted.services.some((service) => !grouped.includes(service))) {
    throw new Error('startTogether must list every service exactly once');
  }
  return groups;
}
