/**
 * The log's topics. Names are DataHub's (`Topics.java`) so that DataHub producers and consumers interoperate; each is
 * overridable by configuration (the environment variables are DataHub's too, see each service's config).
 */
export interface TopicNames {
  /** Proposals to apply, keyed by entity URN. Written by the gateway and by any Kafka producer. */
  readonly metadataChangeProposal: string;
  /** Proposals the writer could not apply, with the reason. */
  readonly failedMetadataChangeProposal: string;
  /** Changes to versioned aspects, keyed by entity URN. */
  readonly metadataChangeLogVersioned: string;
  /** Changes to timeseries aspects, keyed by entity URN. */
  readonly metadataChangeLogTimeseries: string;
  /** One outcome per proposal that carried a request id (Strata's own topic). */
  readonly metadataChangeProposalOutcome: string;
  /** Indexers' acknowledgements of proposals that wait for indexing (Strata's own topic). */
  readonly metadataIndexAcknowledgement: string;
  /**
   * Events that are not changes of the catalog, for the audit trail: logins, kept or refused (JSON, DataHub's
   * `DataHubUsageEvent_v1`), keyed by actor.
   */
  readonly dataHubUsageEvent: string;
  /**
   * DataHub's platform events (`PlatformEvent`: an `entityChangeEvent`…), written by `producePlatformEvent`, keyed by
   * the key its caller gave (else by the event's name), and read by the events API.
   */
  readonly platformEvent: string;
}

export const defaultTopicNames: TopicNames = {
  metadataChangeProposal: 'MetadataChangeProposal_v1',
  failedMetadataChangeProposal: 'FailedMetadataChangeProposal_v1',
  metadataChangeLogVersioned: 'MetadataChangeLog_Versioned_v1',
  metadataChangeLogTimeseries: 'MetadataChangeLog_Timeseries_v1',
  metadataChangeProposalOutcome: 'MetadataChangeProposalOutcome_v1',
  metadataIndexAcknowledgement: 'MetadataIndexAcknowledgement_v1',
  dataHubUsageEvent: 'DataHubUsageEvent_v1',
  platformEvent: 'PlatformEvent_v1',
};

/** Topic names from configuration keyed by DataHub's environment variable names (see `topicConfig` in @strata/config). */
export function topicNamesFrom(config: {
  readonly METADATA_CHANGE_PROPOSAL_TOPIC_NAME: string;
  readonly FAILED_METADATA_CHANGE_PROPOSAL_TOPIC_NAME: string;
  readonly METADATA_CHANGE_LOG_VERSIONED_TOPIC_NAME: string;
  readonly METADATA_CHANGE_LOG_TIMESERIES_TOPIC_NAME: string;
  readonly METADATA_CHANGE_PROPOSAL_OUTCOME_TOPIC_NAME: string;
  readonly METADATA_INDEX_ACKNOWLEDGEMENT_TOPIC_NAME: string;
  readonly DATAHUB_USAGE_EVENT_NAME: string;
  readonly PLATFORM_EVENT_TOPIC_NAME: string;
}): TopicNames {
  return {
    metadataChangeProposal: config.METADATA_CHANGE_PROPOSAL_TOPIC_NAME,
    failedMetadataChangeProposal: config.FAILED_METADATA_CHANGE_PROPOSAL_TOPIC_NAME,
    metadataChangeLogVersioned: config.METADATA_CHANGE_LOG_VERSIONED_TOPIC_NAME,
    metadataChangeLogTimeseries: config.METADATA_CHANGE_LOG_TIMESERIES_TOPIC_NAME,
    metadataChangeProposalOutcome: config.METADATA_CHANGE_PROPOSAL_OUTCOME_TOPIC_NAME,
    metadataIndexAcknowledgement: config.METADATA_INDEX_ACKNOWLEDGEMENT_TOPIC_NAME,
    dataHubUsageEvent: config.DATAHUB_USAGE_EVENT_NAME,
    platformEvent: config.PLATFORM_EVENT_TOPIC_NAME,
  };
}
