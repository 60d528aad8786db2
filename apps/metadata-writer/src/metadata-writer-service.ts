import type { EntityRegistry } from '@strata/model';
import type { EventSerde, TopicNames } from '@strata/events';
import type { MessageLog, Subscription } from '@strata/log';
import type { AspectStore } from '@strata/store';
import type { StrataService } from '@strata/runtime';
import type { Scheduler } from '@strata/timing';
import { OutboxRelay, type OutboxRelayOptions } from './consumers/outbox-relay';
import { ProposalProcessor } from './consumers/proposal-processor';
import { readRoutes } from './http/read-routes';
import { listingRoutes } from './http/listing-routes';
import { restoreRoutes } from './http/restore-routes';
import { runsRoutes } from './http/runs-routes';
import { entityScanRoutes } from './http/entity-scan-routes';
import { storeReadRoutes } from './http/store-read-routes';
import { timelineRoutes } from './http/timeline-routes';
import { writeTraceRoutes } from './http/write-trace-routes';
import { EntityReader } from './reads/entity-reader';
import { TimelineReader } from './reads/timeline-reader';

export interface MetadataWriterServiceOptions {
  readonly log: MessageLog;
  readonly store: AspectStore;
  readonly registry: EntityRegistry;
  readonly serde: EventSerde;
  readonly topics: TopicNames;
  /** The clock (audit stamps, outcomes) and the timers (the outbox relay's retries). */
  readonly scheduler: Scheduler;
  /** Outbox publishing failures, and every proposal the writer refuses. */
  readonly logger: { warn(details: object, message: string): void };
  /** Consumer group of the writers (DataHub's mce-consumer uses `generic-mce-consumer-job-client`). */
  readonly groupId: string;
  /** Actor recorded for proposals that name none. */
  readonly systemActor: string;
  readonly maxAspectBytes: number;
  /** Largest batch of proposals applied in one store commit. */
  readonly maxBatchSize: number;
  /** The marks a change sets (see `ProposalProcessorOptions.marksOf`); handed in by the composition root. */
  readonly marksOf?: (urn: string, aspect: string | undefined) => readonly string[];
}

/**
 * The metadata writer: consumes proposals, keeps versioned aspects in the primary store, emits change logs through its
 * outbox, and serves the primary-store reads. Starting publishes any outbox left by a previous run, then consumes;
 * stopping finishes the batch in hand.
 */
export function createMetadataWriterService(options: MetadataWriterServiceOptions): StrataService {
  const relay = new OutboxRelay({
    store: options.store,
    log: options.log,
    scheduler: options.scheduler,
    onError: (error) => {
      options.logger.warn({ err: error }, 'publishing the outbox failed; retrying');
    },
    ...publicationTraces(options),
  });
  const processor = new ProposalProcessor({
    store: options.store,
    registry: options.registry,
    serde: options.serde,
    topics: options.topics,
    relay,
    now: () => options.scheduler.now(),
    systemActor: options.systemActor,
    maxAspectBytes: options.maxAspectBytes,
    ...(options.marksOf === undefined ? {} : { marksOf: options.marksOf }),
    logger: options.logger,
  });
  let subscription: Subscription | undefined;
  const reader = new EntityReader(options.store, options.registry);
  return {
    name: 'metadata-writer',
    routes: [
      ...readRoutes(reader),
      ...listingRoutes({ store: options.store, registry: options.registry, reader }),
      ...storeReadRoutes(options.store),
      ...writeTraceRoutes(options.store),
      ...entityScanRoutes(options.store, options.registry),
      ...timelineRoutes(new TimelineReader(options.store, options.registry, () => options.scheduler.now())),
      ...runsRoutes({ store: options.store, registry: options.registry }),
      ...restoreRoutes({
        store: options.store,
        registry: options.registry,
        serde: options.serde,
        topics: options.topics,
        relay,
        now: () => options.scheduler.now(),
      }),
    ],
    readModels: [],
    metrics: [],
    async start() {
      await relay.flush();
      subscription = await options.log.subscribe({
        groupId: options.groupId,
        topics: [options.topics.metadataChangeProposal],
        maxBatchSize: options.maxBatchSize,
        handleBatch: (records) => processor.handleBatch(records),
      });
    },
    async stop() {
      await subscription?.stop();
      subscription = undefined;
      await relay.stop();
    },
  };
}

/**
 * How the relay records, on write traces, where the versioned change log ended once their change logs were published
 * (see `OutboxRelayOptions.traces`): from the log's own positions, when it reports them.
 */
function publicationTraces(options: MetadataWriterServiceOptions): Pick<OutboxRelayOptions, 'traces'> {
  const { log, topics, groupId, logger } = options;
  const topic = topics.metadataChangeLogVersioned;
  if (log.groupPositions === undefined) return {};
  const positions = log.groupPositions.bind(log);
  return {
    traces: {
      ends: async () => (await positions(groupId, [topic])).map(({ partition, end }) => ({ topic, partition, end })),
      onError: (error) => {
        logger.warn(
          { err: error },
          'recording the publication of traced change logs failed; their traces stay pending',
        );
      },
    },
  };
}
