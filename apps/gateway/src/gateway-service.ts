import type { Express } from 'express';
import type { EntityRegistry } from '@strata/model';
import type { EventSerde, TopicNames } from '@strata/events';
import type { MessageLog } from '@strata/log';
import type { Registry } from 'prom-client';
import { createHttpApp, type HttpLogger, type Route } from '@strata/http';
import { OutcomeListener } from './consumers/outcome-listener';
import { ingestRoutes } from './http/ingest-routes';
import { ProposalSubmitter } from './ingest/proposal-submitter';
import { schemaRegistryRoutes } from './schema-registry/schema-registry-routes';

/** The indexers a write waiting for indexing waits for: the search indexer keeps search, browse and the graph. */
const AWAITED_INDEXERS = ['search-indexer'];

export interface GatewayServiceOptions {
  readonly log: MessageLog;
  readonly registry: EntityRegistry;
  readonly serde: EventSerde;
  readonly topics: TopicNames;
  /** Routes served by other services, mounted here (in-process in standalone mode, proxies when distributed). */
  readonly ownedElsewhere: readonly Route[];
  /** Metrics of the services running in this process, served at `/metrics`. */
  readonly metrics?: readonly Registry[];
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
    acknowledgementTopic: options.topics.metadataIndexAcknowledgement,
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
    awaitedIndexers: AWAITED_INDEXERS,
  });
  let ready = false;
  const routes: Route[] = [
    ...ingestRoutes({
      registry: options.registry,
      submitter,
      asyncByDefault: options.asyncIngestByDefault,
      maxAspectBytes: options.maxAspectBytes,
      maxBatchProposals: options.maxBatchProposals,
    }),
    ...schemaRegistryRoutes(options.serde, options.topics),
    ...options.ownedElsewhere,
  ];
  const app = createHttpApp({
    routes,
    newId: options.newId,
    anonymousActor: options.anonymousActor,
    maxBodyBytes: options.maxBodyBytes,
    logger: options.logger,
    isReady: () => ready,
    servesRouteTable: false,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
  });

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
