import { Kafka, logLevel as KafkaLogLevel, type Admin } from 'kafkajs';

/** One topic to create: its name, partition count, replication and Kafka topic configuration. */
export interface KafkaTopicSpec {
  readonly name: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly config: Readonly<Record<string, string>>;
}

/** What became of one topic of the plan. */
export interface KafkaTopicOutcome {
  readonly name: string;
  /** `created` by this call, or `existing` already (then left exactly as it was). */
  readonly status: 'created' | 'existing';
  /** The partitions the topic has now, as the cluster reports them. */
  readonly partitions: number;
  /** The partitions the plan asked for: an existing topic may have another count, which is never changed. */
  readonly plannedPartitions: number;
}

/** The part of kafkajs's admin client that {@link applyTopicPlan} uses. */
export type KafkaTopicAdmin = Pick<Admin, 'listTopics' | 'createTopics' | 'fetchTopicMetadata'>;

/** Options of {@link ensureKafkaTopics}. */
export interface EnsureKafkaTopicsOptions {
  /** Bootstrap brokers, `host:port`. */
  readonly brokers: readonly string[];
  /** Client id the brokers see. */
  readonly clientId: string;
  /** How long a TCP connection to one broker may take, in milliseconds. Default 3000. */
  readonly connectionTimeoutMs?: number;
  /**
   * kafkajs's retry of a failed request or connection: how many times, and the first delay in milliseconds (about
   * doubling). Defaults 8 and 500: brokers that are still starting get about a minute and a half.
   */
  readonly retry?: { readonly retries?: number; readonly initialRetryTime?: number };
  /** How long the cluster may take to create the topics and elect their leaders, in milliseconds. Default 30000. */
  readonly createTimeoutMs?: number;
}

/**
 * Creates the topics of `plan` that the cluster does not have, with their partitions, replication and configuration,
 * and reports every topic of the plan. Idempotent: a topic that exists (made by an earlier run, by another deployment
 * tool, or by auto-creation) is left exactly as it is, whatever its partition count or configuration, since changing a
 * partition count would move keys between partitions. Connects an admin client, and disconnects it whatever happens.
 *
 * Rejects when the brokers cannot be reached (after the retries) or refuse a topic (a replication factor above the
 * number of brokers, a configuration the brokers do not accept).
 */
export async function ensureKafkaTopics(
  options: EnsureKafkaTopicsOptions,
  plan: readonly KafkaTopicSpec[],
): Promise<KafkaTopicOutcome[]> {
  if (options.brokers.length === 0) throw new Error('ensureKafkaTopics: brokers must not be empty');
  const admin = new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    connectionTimeout: options.connectionTimeoutMs ?? 3000,
    retry: { retries: options.retry?.retries ?? 8, initialRetryTime: options.retry?.initialRetryTime ?? 500 },
    // Failures reject the call with kafkajs's message; its own log lines would only repeat them on stdout.
    logLevel: KafkaLogLevel.NOTHING,
  }).admin();
  try {
    await admin.connect();
    return await applyTopicPlan(admin, plan, { createTimeoutMs: options.createTimeoutMs ?? 30_000 });
  } catch (error) {
    throw new Error(`Could not create the topics (brokers ${options.brokers.join(', ')}): ${messageOf(error)}`, {
      cause: error,
    });
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * The work of {@link ensureKafkaTopics} on a connected admin client: list the cluster's topics, create the planned
 * ones it lacks (waiting for their leaders), then read back every planned topic's partition count. A run that races
 * another (two deployments starting at once) does not fail for the topics the other created first.
 */
export async function applyTopicPlan(
  admin: KafkaTopicAdmin,
  plan: readonly KafkaTopicSpec[],
  options: { readonly createTimeoutMs: number },
): Promise<KafkaTopicOutcome[]> {
  const names = plan.map((topic) => topic.name);
  if (new Set(names).size !== names.length) throw new Error('applyTopicPlan: the plan names a topic twice');
  if (plan.length === 0) return [];

  const existing = new Set(await admin.listTopics());
  const missing = plan.filter((topic) => !existing.has(topic.name));
  if (missing.length > 0) {
    // kafkajs resolves false rather than rejecting when every refusal is TOPIC_ALREADY_EXISTS (a concurrent run).
    await admin.createTopics({
      waitForLeaders: true,
      timeout: options.createTimeoutMs,
      topics: missing.map((topic) => ({
        topic: topic.name,
        numPartitions: topic.partitions,
        replicationFactor: topic.replicationFactor,
        configEntries: Object.entries(topic.config).map(([name, value]) => ({ name, value })),
      })),
    });
  }

  const { topics } = await admin.fetchTopicMetadata({ topics: names });
  const partitionsOf = new Map(topics.map((topic) => [topic.name, topic.partitions.length]));
  return plan.map((topic) => {
    const partitions = partitionsOf.get(topic.name);
    if (partitions === undefined) throw new Error(`the cluster does not report topic ${topic.name}`);
    return {
      name: topic.name,
      status: existing.has(topic.name) ? 'existing' : 'created',
      partitions,
      plannedPartitions: topic.partitions,
    };
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
