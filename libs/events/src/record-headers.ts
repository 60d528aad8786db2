/** Log record headers Strata sets. Every record of a request carries the same request id, actor and trace id. */
export const RecordHeader = {
  /** Correlates a proposal with its outcome record; present on proposals the gateway publishes. */
  requestId: 'strata-request-id',
  /** URN of the actor who made the request. */
  actor: 'strata-actor',
  /** Trace id, propagated from the request's `traceparent` / `X-Trace-Id`, or generated. */
  traceId: 'strata-trace-id',
  /**
   * `true` on a proposal whose caller waits until the indexers hold it (`X-DataHub-Sync-Index-Update: true`); the
   * writer copies it onto the last versioned change log of the proposal, and each indexer acknowledges that one on
   * `MetadataIndexAcknowledgement_v1` once applied.
   */
  awaitIndexing: 'strata-await-indexing',
  /**
   * On a change log: the identity of the change, `<proposal id>/<index among the proposal's change logs>`. The same
   * change published again (the outbox relay after a crash) carries the same id, so a trail keyed by it records the
   * change once.
   */
  changeId: 'strata-change-id',
  /** Where the request came from (its client's address, as the gateway saw it). */
  sourceIp: 'strata-source-ip',
  /** The request's `User-Agent`. */
  userAgent: 'strata-user-agent',
  /** Which interface the request came through: `RESTLI` or `OPENAPI` (DataHub's event sources). */
  eventSource: 'strata-event-source',
  /**
   * A change log's change type (`UPSERT`, `DELETE`, `RESTATE`…), set by the writer, so that a consumer can pass over
   * what it never applies (a restatement, for the audit trail) without decoding it.
   */
  changeType: 'strata-change-type',
  /**
   * On a proposal the gateway accepted without applying it (an asynchronous ingest puts every proposal on the log) but
   * found invalid: why. The writer refuses such a proposal with this reason, whatever it finds itself, so that nothing
   * the gateway refused is ever applied, and reports it as any refusal (outcome, failed-proposal record, write trace).
   */
  refusal: 'strata-refusal',
  /** With {@link RecordHeader.refusal}: the refusal's error code (`validation`, `bad-request`…). */
  refusalCode: 'strata-refusal-code',
} as const;

/** The origin of a request, as the records it causes carry it in their headers. */
export interface RequestOrigin {
  readonly requestId: string;
  readonly actor: string;
  readonly traceId: string;
  readonly sourceIp?: string | undefined;
  readonly userAgent?: string | undefined;
  readonly eventSource?: string | undefined;
}

/** The headers naming a request's origin on every record it causes: ids, actor, and where it came from. */
export function originHeaders(origin: RequestOrigin): Record<string, string> {
  const headers: Record<string, string> = {
    [RecordHeader.requestId]: origin.requestId,
    [RecordHeader.actor]: origin.actor,
    [RecordHeader.traceId]: origin.traceId,
  };
  if (origin.sourceIp !== undefined) headers[RecordHeader.sourceIp] = origin.sourceIp;
  if (origin.userAgent !== undefined) headers[RecordHeader.userAgent] = origin.userAgent.slice(0, 512);
  if (origin.eventSource !== undefined) headers[RecordHeader.eventSource] = origin.eventSource;
  return headers;
}

/** The headers a proposal passes on to the records it causes (change logs, outcomes, failures). */
export const PROPAGATED_HEADERS: readonly string[] = [
  RecordHeader.requestId,
  RecordHeader.actor,
  RecordHeader.traceId,
  RecordHeader.sourceIp,
  RecordHeader.userAgent,
  RecordHeader.eventSource,
];
