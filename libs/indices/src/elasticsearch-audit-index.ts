import type { Client, estypes } from '@elastic/elasticsearch';

import { AUDIT_TOTAL_LIMIT, type AuditEvent, type AuditIndex, type AuditPage, type AuditQuery } from './audit-index';
import { clientOf, ensureIndex, indexPrefixOf, type ElasticsearchConnection } from './elasticsearch-connection';

/** Options of {@link ElasticsearchAuditIndex}. */
export type ElasticsearchAuditIndexOptions = ElasticsearchConnection & {
  /** Prepended to the index name with `_` (`<prefix>_datahub_usage_event`), lowercased. Default: none. */
  readonly indexPrefix?: string;
  /**
   * The `refresh` of every bulk write. Default `wait_for`: a write resolves once searches see it. `false` lets a
   * consumer record faster, its events searchable within the index's refresh interval (one second by default).
   */
  readonly refresh?: boolean | 'wait_for';
};

/** The longest keyword indexed (Lucene's term limit is 32,766 bytes; a URN or user agent never needs more). */
const MAX_KEYWORD_LENGTH = 8191;

/** The index's name: DataHub's usage-event index, `datahub_usage_event`, under the prefix. */
export function auditIndexName(prefix: string): string {
  return prefix === '' ? 'datahub_usage_event' : `${prefix}_datahub_usage_event`;
}

/**
 * The document of an event: DataHub's usage-event keys (`type`, `timestamp`, `actorUrn`, `entityUrn`, `entityType`,
 * `aspectName`, `eventSource`, `userAgent`, `loginSource`, `loginDenialReason`, `traceId`, `sourceIP`,
 * `usageSource: "backend"`), and Strata's `eventId` (the sort's tiebreaker) and `changeType`.
 */
type AuditDocument = Omit<AuditEvent, 'id'> & { readonly eventId: string; readonly usageSource: 'backend' };

/** Settings and mappings: every field a keyword but the time; one shard, so that counts and sorts are exact. */
export function auditIndexDefinition(): {
  settings: estypes.IndicesIndexSettings;
  mappings: estypes.MappingTypeMapping;
} {
  const keyword: estypes.MappingProperty = { type: 'keyword', ignore_above: MAX_KEYWORD_LENGTH };
  const fields = [
    'eventId',
    'type',
    'actorUrn',
    'entityUrn',
    'entityType',
    'aspectName',
    'eventSource',
    'userAgent',
    'sourceIP',
    'traceId',
    'loginSource',
    'loginDenialReason',
    'changeType',
    'usageSource',
  ];
  return {
    settings: { number_of_shards: 1 },
    mappings: {
      dynamic: 'strict',
      properties: {
        timestamp: { type: 'date', format: 'epoch_millis' },
        ...Object.fromEntries(fields.map((field) => [field, keyword])),
      },
    },
  };
}

/**
 * The scale audit index: Elasticsearch, an index shaped as DataHub's `datahub_usage_event` (its document keys, one
 * document per event under the event's id, so recording again overwrites), with the semantics of the port
 * (`audit-index.ts`) that the SQLite adapter also implements. Plain Query DSL of Elasticsearch 8 and 9.
 *
 * - **Writes.** One `_bulk` of `index` operations per call; an item the cluster rejects rejects the call, naming the
 *   events (the others stay written; recording them again is harmless).
 * - **Searches.** A `bool` filter on `timestamp` (`gte` start, `lt` end), `terms` for each non-empty list, and
 *   `usageSource: backend` (as DataHub, so that events of other producers sharing the index stay out); sorted by
 *   `timestamp` desc, `type`, `actorUrn` and `eventId` asc, paged with `search_after` on those values;
 *   `track_total_hits` up to {@link AUDIT_TOTAL_LIMIT}.
 * - **Expiry.** `_delete_by_query` on `timestamp lt before`, refreshed, conflicts proceeding.
 */
export class ElasticsearchAuditIndex implements AuditIndex {
  readonly indexName: string;
  private readonly client: Client;
  private readonly ownsClient: boolean;
  private readonly refresh: boolean | 'wait_for';
  private closed = false;

  constructor(options: ElasticsearchAuditIndexOptions) {
    this.indexName = auditIndexName(indexPrefixOf(options.indexPrefix));
    this.refresh = options.refresh ?? 'wait_for';
    const { client, owned } = clientOf(options);
    this.client = client;
    this.ownsClient = owned;
  }

  /** Opens the index: builds the handle, then creates the index or adds its mappings. Closes the handle on failure. */
  static async open(options: ElasticsearchAuditIndexOptions): Promise<ElasticsearchAuditIndex> {
    const index = new ElasticsearchAuditIndex(options);
    try {
      await ensureIndex(index.client, index.indexName, auditIndexDefinition());
    } catch (error) {
      await index.close();
      throw error;
    }
    return index;
  }

  async record(events: readonly AuditEvent[]): Promise<void> {
    this.assertOpen();
    if (events.length === 0) return;
    const operations = events.flatMap((event) => [
      { index: { _index: this.indexName, _id: event.id } },
      documentOf(event),
    ]);
    const response = await this.client.bulk({ operations, refresh: this.refresh });
    if (!response.errors) return;
    const failures = response.items.flatMap((item, position) => {
      const error = item.index?.error;
      return error === undefined ? [] : [`${events[position]?.id ?? '?'} (${error.type}: ${error.reason ?? ''})`];
    });
    throw new Error(
      `Elasticsearch rejected ${failures.length} of ${events.length} audit events: ${failures.slice(0, 10).join('; ')}${
        failures.length > 10 ? '; …' : ''
      }`,
    );
  }

  async search(query: AuditQuery): Promise<AuditPage> {
    this.assertOpen();
    const filter: estypes.QueryDslQueryContainer[] = [
      { range: { timestamp: { gte: query.startTime, lt: query.endTime } } },
      { term: { usageSource: 'backend' } },
    ];
    for (const [field, values] of [
      ['type', query.eventTypes],
      ['entityType', query.entityTypes],
      ['aspectName', query.aspectTypes],
      ['actorUrn', query.actorUrns],
    ] as const) {
      if (values.length > 0) filter.push({ terms: { [field]: [...values] } });
    }
    const response = await this.client.search<AuditDocument>({
      index: this.indexName,
      query: { bool: { filter } },
      sort: [
        { timestamp: { order: 'desc' } },
        { type: { order: 'asc' } },
        { actorUrn: { order: 'asc' } },
        { eventId: { order: 'asc' } },
      ],
      size: query.size,
      track_total_hits: AUDIT_TOTAL_LIMIT,
      ...(query.after === undefined ? {} : { search_after: [...query.after] }),
    });
    const total = response.hits.total;
    return {
      events: response.hits.hits.flatMap((hit) => (hit._source === undefined ? [] : [eventOf(hit._source)])),
      total: Math.min(typeof total === 'number' ? total : (total?.value ?? 0), AUDIT_TOTAL_LIMIT),
    };
  }

  async expire(before: number): Promise<number> {
    this.assertOpen();
    const response = await this.client.deleteByQuery({
      index: this.indexName,
      query: { range: { timestamp: { lt: before } } },
      conflicts: 'proceed',
      refresh: true,
    });
    return response.deleted ?? 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient) await this.client.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('ElasticsearchAuditIndex is closed');
  }
}

function documentOf(event: AuditEvent): AuditDocument {
  const { id, ...fields } = event;
  return { ...fields, eventId: id, usageSource: 'backend' };
}

function eventOf(document: AuditDocument): AuditEvent {
  const { eventId, usageSource: _usageSource, ...fields } = document;
  return { id: eventId, ...fields };
}
