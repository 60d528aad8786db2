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
} as const;
