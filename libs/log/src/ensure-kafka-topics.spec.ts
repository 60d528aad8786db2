import type { ITopicConfig, PartitionMetadata } from 'kafkajs';
import { applyTopicPlan, ensureKafkaTopics, type KafkaTopicAdmin, type KafkaTopicSpec } from './ensure-kafka-topics';

// librdkafka's mock cluster, the tests' Kafka broker, cannot create topics through the admin API: the set-up is
// checked here against an in-memory cluster that behaves as a real one does.

/** A cluster of topics (name → partition count) that creates topics as Kafka's admin API does. */
function fakeCluster(topics: Record<string, number>) {
  const partitionsOf = new Map(Object.entries(topics));
  const created: ITopicConfig[] = [];
  const partitionList = (count: number): PartitionMetadata[] =>
    Array.from({ length: count }, (_, partitionId) => ({
      partitionErrorCode: 0,
      partitionId,
      leader: 1,
      replicas: [1],
      isr: [1],
    }));
  const admin: KafkaTopicAdmin = {
    listTopics: () => Promise.resolve([...partitionsOf.keys()]),
    createTopics: ({ topics: requested }) => {
      let createdAll = true;
      for (const topic of requested) {
        if (partitionsOf.has(topic.topic)) {
          createdAll = false;
          continue;
        }
        created.push(topic);
        partitionsOf.set(topic.topic, topic.numPartitions ?? 1);
      }
      return Promise.resolve(createdAll);
    },
    fetchTopicMetadata: (options) =>
      Promise.resolve({
        topics: (options?.topics ?? [...partitionsOf.keys()])
          .filter((name) => partitionsOf.has(name))
          .map((name) => ({ name, partitions: partitionList(partitionsOf.get(name) ?? 0) })),
      }),
  };
  return { admin, created };
}

const proposals: KafkaTopicSpec = {
  name: 'MetadataChangeProposal_v1',
  partitions: 6,
  replicationFactor: 3,
  config: { 'retention.ms': '604800000', 'min.insync.replicas': '2' },
};
const outcomes: KafkaTopicSpec = {
  name: 'MetadataChangeProposalOutcome_v1',
  partitions: 6,
  replicationFactor: 3,
  config: { 'retention.ms': '3600000' },
};

describe('applyTopicPlan', () => {
  it('creates the topics the cluster lacks, with their partitions, replication and configuration', async () => {
    const { admin, created } = fakeCluster({});

    const outcome = await applyTopicPlan(admin, [proposals, outcomes], { createTimeoutMs: 30_000 });

    expect(created).toEqual([
      {
        topic: 'MetadataChangeProposal_v1',
        numPartitions: 6,
        replicationFactor: 3,
        configEntries: [
          { name: 'retention.ms', value: '604800000' },
          { name: 'min.insync.replicas', value: '2' },
        ],
      },
      {
        topic: 'MetadataChangeProposalOutcome_v1',
        numPartitions: 6,
        replicationFactor: 3,
        configEntries: [{ name: 'retention.ms', value: '3600000' }],
      },
    ]);
    expect(outcome).toEqual([
      { name: 'MetadataChangeProposal_v1', status: 'created', partitions: 6, plannedPartitions: 6 },
      { name: 'MetadataChangeProposalOutcome_v1', status: 'created', partitions: 6, plannedPartitions: 6 },
    ]);
  });

  it('leaves an existing topic as it is, and reports the partitions it has', async () => {
    const { admin, created } = fakeCluster({ MetadataChangeProposal_v1: 3 });

    const outcome = await applyTopicPlan(admin, [proposals, outcomes], { createTimeoutMs: 30_000 });

    expect(created.map((topic) => topic.topic)).toEqual(['MetadataChangeProposalOutcome_v1']);
    expect(outcome).toEqual([
      { name: 'MetadataChangeProposal_v1', status: 'existing', partitions: 3, plannedPartitions: 6 },
      { name: 'MetadataChangeProposalOutcome_v1', status: 'created', partitions: 6, plannedPartitions: 6 },
    ]);
  });

  it('asks the cluster to create nothing when a second run finds every topic', async () => {
    const { admin } = fakeCluster({});
    await applyTopicPlan(admin, [proposals, outcomes], { createTimeoutMs: 30_000 });
    const createTopics = jest.spyOn(admin, 'createTopics');

    const outcome = await applyTopicPlan(admin, [proposals, outcomes], { createTimeoutMs: 30_000 });

    expect(createTopics).not.toHaveBeenCalled();
    expect(outcome.map((topic) => topic.status)).toEqual(['existing', 'existing']);
  });

  it('waits for the new topics to have leaders, within the timeout', async () => {
    const { admin } = fakeCluster({});
    const createTopics = jest.spyOn(admin, 'createTopics');

    await applyTopicPlan(admin, [proposals], { createTimeoutMs: 12_345 });

    expect(createTopics).toHaveBeenCalledWith(expect.objectContaining({ waitForLeaders: true, timeout: 12_345 }));
  });

  it('fails with the cluster’s refusal (a replication factor above the brokers it has)', async () => {
    const { admin } = fakeCluster({});
    admin.createTopics = () => Promise.reject(new Error('Replication factor: 3 larger than available brokers: 1.'));

    await expect(applyTopicPlan(admin, [proposals], { createTimeoutMs: 30_000 })).rejects.toThrow(
      'Replication factor: 3 larger than available brokers: 1.',
    );
  });

  it('fails when the cluster does not report a planned topic afterwards', async () => {
    const { admin } = fakeCluster({});
    admin.createTopics = () => Promise.resolve(true);

    await expect(applyTopicPlan(admin, [proposals], { createTimeoutMs: 30_000 })).rejects.toThrow(
      'the cluster does not report topic MetadataChangeProposal_v1',
    );
  });

  it('refuses a plan that names a topic twice', async () => {
    const { admin } = fakeCluster({});

    await expect(applyTopicPlan(admin, [proposals, proposals], { createTimeoutMs: 30_000 })).rejects.toThrow(
      'the plan names a topic twice',
    );
  });
});

describe('ensureKafkaTopics', () => {
  it('fails naming the brokers when none answers', async () => {
    await expect(
      ensureKafkaTopics(
        { brokers: ['127.0.0.1:1'], clientId: 'strata-init', connectionTimeoutMs: 100, retry: { retries: 0 } },
        [proposals],
      ),
    ).rejects.toThrow(/^Could not create the topics \(brokers 127\.0\.0\.1:1\): /);
  });

  it('refuses an empty broker list', async () => {
    await expect(ensureKafkaTopics({ brokers: [], clientId: 'strata-init' }, [proposals])).rejects.toThrow(
      'brokers must not be empty',
    );
  });
});
