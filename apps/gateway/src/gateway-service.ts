import express, { type Express } from 'express';
import type { EntityRegistry } from '@strata/model';
import type { EventSerde, TopicNames } from '@strata/events';
import type { MessageLog } from '@strata/log';
import {
  createErrorHandler,
  createRequestContextFactory,
  defineRoute,
  jsonBody,
  mountRoutes,
  notFoundHandler,
  type HttpLogger,
  type Route,
} from '@strata/http';
import { OutcomeListener } from './consumers/outcome-listener';
import { ingestRoutes } from './http/ingest-routes';
import { ProposalSubmitter } from './ingest/proposal-submitter';

export interface GatewayServiceOptions {
  readonly log: MessageLog;
  readonly registry: EntityRegistry;
  readonly serde: EventSerde;
  readonly topics: TopicNames;
  /** Routes served by other services, mounted here (in-process in standalone mode, proxies when distributed). */
  readonly ownedElsewhere: readonly Route[];
  readonly newId: () => string;
  readonly logger: HttpLogger & { warn(details: object, message: string): void };
  /** Actor of requests while authentication is off. */
  readonly anonymousActor: string;
  readonly asyncIngestByDefault: boolean;
  readonly outcomeTimeoutMs: number;
  readonly maxBodyBytes: number;
  readonly maxAspectBytes: number;
  readonly maxBatchProposals: number;
}

export interface GatewayService {
  /** The public HTTP surface. */
  readonly app: Express;
  /** Every route the gateway serves, for documentation. */
  readonly routes: readonly Route[];
  /** Starts listening for outcomes; the gateway is ready (health 200) once it resolves. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The gateway: validates every write in full, publishes it as a proposal on the log, and (by default) answers once its
 * outcome arrives; reads are routed to the services that own them.
 */
export function createGatewayService(options: GatewayServiceOptions): GatewayService {
  const outcomes = new OutcomeListener({
    log: options.log,
    serde: options.serde,
    topic: options.topics.metadataChangeProposalOutcome,
    groupId: `gateway-outcomes-${options.newId()}`,
    onUndecodable: (error) => {
      options.logger.warn({ err: error }, 'skipped an undecodable outcome record');
    },
  });
  const submitter = new ProposalSubmitter({
    log: options.log,
    serde: options.serde,
    topics: options.topics,
    outcomes,
    outcomeTimeoutMs: options.outcomeTimeoutMs,
  });
  let ready = false;
  const routes: Route[] = [
    defineRoute({
      method: 'GET',
      resource: '/health',
      family: 'restli',
      summary: 'Readiness: 200 once the service accepts writes, 503 before and while stopping.',
      handle: () => Promise.resolve(ready ? { body: { status: 'ok' } } : { status: 503, body: { status: 'starting' } }),
    }),
    ...ingestRoutes({
      registry: options.registry,
      submitter,
      asyncByDefault: options.asyncIngestByDefault,
      maxAspectBytes: options.maxAspectBytes,
      maxBatchProposals: options.maxBatchProposals,
    }),
    ...options.ownedElsewhere,
  ];

  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(jsonBody(options.maxBodyBytes));
  const contextFor = createRequestContextFactory({ newId: options.newId, actorOf: () => options.anonymousActor });
  app.use(mountRoutes(express.Router(), routes, contextFor));
  app.use(notFoundHandler);
  app.use(createErrorHandler(options.logger));

  return {
    app,
    routes,
    async start() {
      await outcomes.start();
      ready = true;
    },
    async stop() {
      ready = false;
      await outcomes.stop();
    },
  };
}
