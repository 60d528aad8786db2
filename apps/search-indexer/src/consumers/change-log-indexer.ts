/**
 * Applies versioned change logs to the search index and the graph index, one batch (one partition's records, in log
 * order) at a time.
 *
 * Delivery policy: at least once, idempotent. The batch's documents are read, every change is folded through
 * `evolve` in order, the resulting documents are written in one atomic index write, then the graph changes are
 * applied in order; only then does the handler resolve and the log commit the batch. A crash in between redelivers
 * the batch, and replaying it writes the same documents and edges again (documents and each aspect's edges are
 * replaced, never appended). Records that cannot be decoded, or name an entity the registry does not know, cannot be
 * indexed: they are skipped with a warning, consumption continuing.
 *
 * After the batch is durable, the indexer acknowledges the change logs that ask for it (header
 * `strata-await-indexing`) on the acknowledgement topic, and records its progress (per-partition position and lag).
 */
import type { EntityRegistry } from '@strata/model';
import { RecordHeader, type EventSerde, type TopicNames } from '@strata/events';
import type { LogRecord, MessageLog, OutgoingRecord } from '@strata/log';
import type { GraphIndex, SearchDocument, SearchIndex } from '@strata/indices';
import { documentWrite, evolve, type AspectChange } from '../domain/evolve';
import type { IndexProgress } from './index-progress';

export interface ChangeLogIndexerOptions {
  readonly search: SearchIndex;
  readonly graph: GraphIndex;
  readonly registry: EntityRegistry;
  readonly serde: EventSerde;
  readonly log: MessageLog;
  readonly topics: TopicNames;
  readonly progress: IndexProgress;
  /** Name this indexer acknowledges under (`search-indexer`). */
  readonly indexerName: string;
  readonly now: () => number;
  readonly logger: { warn(details: object, message: string): void };
}

interface Decoded {
  readonly record: LogRecord;
  readonly change: AspectChange;
}

export class ChangeLogIndexer {
  constructor(private readonly options: ChangeLogIndexerOptions) {}

  async handleBatch(records: readonly LogRecord[]): Promise<void> {
    const decoded = records.flatMap((record) => this.decode(record));
    if (decoded.length > 0) await this.apply(decoded.map(({ change }) => change));
    await this.acknowledge(decoded);
    this.options.progress.applied(records, this.options.now());
  }

  private async apply(changes: readonly AspectChange[]): Promise<void> {
    const urns = [...new Set(changes.map((change) => change.urn))];
    const stored = await this.options.search.documents(urns);
    const documents = new Map<string, SearchDocument | null | undefined>(urns.map((urn) => [urn, stored.get(urn)]));
    const graph: (() => Promise<void>)[] = [];
    for (const change of changes) {
      const evolution = evolve(documents.get(change.urn), change);
      documents.set(change.urn, evolution.document);
      const step = evolution.graph;
      graph.push(
        step.kind === 'removeEntity'
          ? () => this.options.graph.removeEntity(change.urn)
          : () => this.options.graph.replaceEdges(change.urn, step.aspect, step.edges),
      );
    }
    const writes = [...documents].flatMap(([urn, document]) =>
      document === undefined ? [] : [documentWrite(urn, document)],
    );
    await this.options.search.write(writes);
    for (const step of graph) await step();
  }

  private decode(record: LogRecord): Decoded[] {
    try {
      const log = this.options.serde.changeLog.decode(record.value);
      const urn = log.entityUrn ?? record.key;
      const entity = this.options.registry.entity(log.entityType);
      const aspect = entity?.aspect(log.aspectName ?? '');
      if (entity === undefined || aspect === undefined || aspect.kind === 'timeseries') {
        this.options.logger.warn(
          { entityType: log.entityType, aspect: log.aspectName, offset: record.offset, partition: record.partition },
          'skipping a change log of an unknown entity or aspect',
        );
        return [];
      }
      const value = log.aspect === null ? undefined : (JSON.parse(log.aspect.value.toString('utf8')) as unknown);
      return [
        {
          record,
          change: {
            entity,
            urn,
            aspectName: aspect.name,
            changeType: log.changeType,
            value,
            ...(log.created === null ? {} : { createdAt: log.created.time, createdBy: log.created.actor }),
          },
        },
      ];
    } catch (error) {
      this.options.logger.warn(
        { err: error, offset: record.offset, partition: record.partition, key: record.key },
        'skipping a change log that does not decode',
      );
      return [];
    }
  }

  private async acknowledge(decoded: readonly Decoded[]): Promise<void> {
    const acknowledgements: OutgoingRecord[] = [];
    for (const { record, change } of decoded) {
      const requestId = record.headers[RecordHeader.requestId];
      if (record.headers[RecordHeader.awaitIndexing] !== 'true' || requestId === undefined) continue;
      acknowledgements.push({
        topic: this.options.topics.metadataIndexAcknowledgement,
        key: change.urn,
        headers: { [RecordHeader.requestId]: requestId },
        value: this.options.serde.indexAcknowledgement.encode({
          requestId,
          indexer: this.options.indexerName,
          entityUrn: change.urn,
          timestampMillis: this.options.now(),
        }),
      });
    }
    if (acknowledgements.length > 0) await this.options.log.publish(acknowledgements);
  }
}
