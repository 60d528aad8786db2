import type { TopicNames } from './topics';

/**
 * What a deployment decides about its topics, the input of {@link planTopics}. Validated by the initialisation
 * command's configuration (`apps/standalone/src/init-config.ts`), and again here.
 */
export interface TopicSettings {
  /**
   * Partitions of every topic. A partition is the unit of parallelism of a consumer group: a group has at most this
   * many busy instances. Chosen once: a topic's count is never changed afterwards, since keys would move to other
   * partitions and an entity's records would lose their order.
   */
  readonly partitions: number;
  /** Copies of every partition, on different brokers. */
  readonly replicationFactor: number;
  /**
   * How long records are kept on the topics that services consume (proposals, change logs, failed proposals, usage
   * events), in milliseconds; -1 keeps them forever. A consumer stopped for longer misses what expired.
   */
  readonly retentionMs: number;
  /**
   * How long records are kept on the topics only gateways read (outcomes, acknowledgements), in milliseconds. They
   * matter while a request waits, so a short retention keeps a restarted gateway from reading a long backlog.
   */
  readonly replyRetentionMs: number;
  /** Largest record batch a topic accepts, in bytes (`max.message.bytes`). */
  readonly maxMessageBytes: number;
}

/** One topic as the deployment creates it. */
export interface TopicPlan {
  readonly name: string;
  /** What the topic carries, in a few words, for the initialisation's report. */
  readonly purpose: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  /** Kafka topic configuration: `cleanup.policy`, `retention.ms`, `max.message.bytes`, `min.insync.replicas`. */
  readonly config: Readonly<Record<string, string>>;
}

/** What each topic carries and which retention it keeps; a `Record`, so that a topic added to `TopicNames` must be here. */
const topicRoles: Readonly<Record<keyof TopicNames, { purpose: string; retention: 'consumed' | 'reply' }>> = {
  metadataChangeProposal: { purpose: 'proposals, for the metadata-writer', retention: 'consumed' },
  failedMetadataChangeProposal: { purpose: 'proposals that could not be applied', retention: 'consumed' },
  metadataChangeLogVersioned: { purpose: 'versioned change logs, for the indexers', retention: 'consumed' },
  metadataChangeLogTimeseries: { purpose: 'timeseries change logs', retention: 'consumed' },
  metadataChangeProposalOutcome: { purpose: 'outcomes, for the gateways', retention: 'reply' },
  metadataIndexAcknowledgement: { purpose: 'index acknowledgements, for the gateways', retention: 'reply' },
  dataHubUsageEvent: { purpose: 'usage events (logins), for the audit trail', retention: 'consumed' },
  platformEvent: { purpose: 'platform events, for the events API and its pollers', retention: 'consumed' },
};

/**
 * The log's topics as a Kafka deployment creates them: every topic of {@link TopicNames}, in a fixed order, with its
 * partitions, replication and configuration. A pure function of the names and the settings, so that the
 * initialisation is the same plan wherever it runs.
 *
 * - Every topic deletes old records (`cleanup.policy=delete`) after its retention: the consumed topics after
 *   `retentionMs`, the gateways' reply topics after `replyRetentionMs`.
 * - `min.insync.replicas` is 2 when there are at least three replicas, else 1: the producers write with `acks=all`, so
 *   an acknowledged write is then on two brokers at least, and writes go on while one broker is down.
 * - `max.message.bytes` bounds one record batch, and the log sends a call's records for one partition as one batch.
 *
 * Throws when a setting is out of range or two topics share a name (their records could not be told apart).
 */
export function planTopics(names: TopicNames, settings: TopicSettings): TopicPlan[] {
  const { partitions, replicationFactor, retentionMs, replyRetentionMs, maxMessageBytes } = settings;
  requireInteger('partitions', partitions, 1);
  requireInteger('replicationFactor', replicationFactor, 1);
  requireRetention('retentionMs', retentionMs);
  requireRetention('replyRetentionMs', replyRetentionMs);
  requireInteger('maxMessageBytes', maxMessageBytes, 1);

  const roles = Object.entries(topicRoles) as [keyof TopicNames, (typeof topicRoles)[keyof TopicNames]][];
  const seen = new Map<string, keyof TopicNames>();
  for (const [key] of roles) {
    const name = names[key];
    if (name.trim() === '') throw new Error(`Topic ${key} has no name`);
    const other = seen.get(name);
    if (other !== undefined) throw new Error(`Topics ${other} and ${key} share the name ${name}`);
    seen.set(name, key);
  }

  const minInSyncReplicas = replicationFactor >= 3 ? 2 : 1;
  return roles.map(([key, { purpose, retention }]) => ({
    name: names[key],
    purpose,
    partitions,
    replicationFactor,
    config: {
      'cleanup.policy': 'delete',
      'retention.ms': String(retention === 'reply' ? replyRetentionMs : retentionMs),
      'max.message.bytes': String(maxMessageBytes),
      'min.insync.replicas': String(minInSyncReplicas),
    },
  }));
}

function requireInteger(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be an integer of at least ${min}`);
}

function requireRetention(name: string, value: number): void {
  if (value !== -1 && (!Number.isSafeInteger(value) || value < 1)) {
    throw new Error(`${name} must be -1 (keep forever) or a positive number of milliseconds`);
  }
}
