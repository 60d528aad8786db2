import { planTopics, type TopicSettings } from './topic-plan';
import { defaultTopicNames, topicNamesFrom } from './topics';

const settings: TopicSettings = {
  partitions: 6,
  replicationFactor: 1,
  retentionMs: 604_800_000,
  replyRetentionMs: 3_600_000,
  maxMessageBytes: 67_108_864,
};

describe('planTopics', () => {
  it('plans every topic of the log once, in a fixed order, with the partitions and replication asked for', () => {
    const plan = planTopics(defaultTopicNames, { ...settings, partitions: 12, replicationFactor: 3 });

    expect(plan.map((topic) => topic.name)).toEqual([
      'MetadataChangeProposal_v1',
      'FailedMetadataChangeProposal_v1',
      'MetadataChangeLog_Versioned_v1',
      'MetadataChangeLog_Timeseries_v1',
      'MetadataChangeProposalOutcome_v1',
      'MetadataIndexAcknowledgement_v1',
      'DataHubUsageEvent_v1',
      'PlatformEvent_v1',
    ]);
    expect(new Set(plan.map((topic) => topic.name))).toEqual(new Set(Object.values(defaultTopicNames)));
    for (const topic of plan) {
      expect(topic).toMatchObject({ partitions: 12, replicationFactor: 3 });
      expect(topic.purpose).not.toBe('');
    }
  });

  it('keeps the consumed topics for the retention, and the gateways’ outcomes and acknowledgements for the short one', () => {
    const retention = Object.fromEntries(
      planTopics(defaultTopicNames, settings).map((topic) => [topic.name, topic.config['retention.ms']]),
    );

    expect(retention).toEqual({
      MetadataChangeProposal_v1: '604800000',
      FailedMetadataChangeProposal_v1: '604800000',
      MetadataChangeLog_Versioned_v1: '604800000',
      MetadataChangeLog_Timeseries_v1: '604800000',
      MetadataChangeProposalOutcome_v1: '3600000',
      MetadataIndexAcknowledgement_v1: '3600000',
      DataHubUsageEvent_v1: '604800000',
      PlatformEvent_v1: '604800000',
    });
  });

  it('keeps records forever when the retention is -1', () => {
    const plan = planTopics(defaultTopicNames, { ...settings, retentionMs: -1 });

    expect(plan.find((topic) => topic.name === 'MetadataChangeLog_Versioned_v1')?.config['retention.ms']).toBe('-1');
    expect(plan.find((topic) => topic.name === 'MetadataChangeProposalOutcome_v1')?.config['retention.ms']).toBe(
      '3600000',
    );
  });

  it('deletes old records and accepts batches up to the largest message size on every topic', () => {
    for (const topic of planTopics(defaultTopicNames, { ...settings, maxMessageBytes: 8_388_608 })) {
      expect(topic.config).toMatchObject({ 'cleanup.policy': 'delete', 'max.message.bytes': '8388608' });
    }
  });

  it.each([
    [1, '1'],
    [2, '1'],
    [3, '2'],
    [5, '2'],
  ])('with %i replicas, asks %s of them to hold a write before it is acknowledged', (replicationFactor, expected) => {
    for (const topic of planTopics(defaultTopicNames, { ...settings, replicationFactor })) {
      expect(topic.config['min.insync.replicas']).toBe(expected);
    }
  });

  it('plans renamed topics under the names the configuration gives them', () => {
    const names = topicNamesFrom({
      METADATA_CHANGE_PROPOSAL_TOPIC_NAME: 'acme.proposals',
      FAILED_METADATA_CHANGE_PROPOSAL_TOPIC_NAME: 'acme.failed-proposals',
      METADATA_CHANGE_LOG_VERSIONED_TOPIC_NAME: 'acme.change-log',
      METADATA_CHANGE_LOG_TIMESERIES_TOPIC_NAME: 'acme.timeseries-change-log',
      METADATA_CHANGE_PROPOSAL_OUTCOME_TOPIC_NAME: 'acme.outcomes',
      METADATA_INDEX_ACKNOWLEDGEMENT_TOPIC_NAME: 'acme.acknowledgements',
      DATAHUB_USAGE_EVENT_NAME: 'acme.usage',
      PLATFORM_EVENT_TOPIC_NAME: 'acme.platform-events',
    });

    const plan = planTopics(names, settings);

    expect(plan.map((topic) => topic.name)).toEqual([
      'acme.proposals',
      'acme.failed-proposals',
      'acme.change-log',
      'acme.timeseries-change-log',
      'acme.outcomes',
      'acme.acknowledgements',
      'acme.usage',
      'acme.platform-events',
    ]);
    expect(plan.find((topic) => topic.name === 'acme.outcomes')?.config['retention.ms']).toBe('3600000');
  });

  it('refuses two topics of one name, whose records could not be told apart', () => {
    const names = { ...defaultTopicNames, metadataChangeProposalOutcome: 'MetadataChangeProposal_v1' };

    expect(() => planTopics(names, settings)).toThrow(
      'Topics metadataChangeProposal and metadataChangeProposalOutcome share the name MetadataChangeProposal_v1',
    );
  });

  it('refuses a topic without a name', () => {
    expect(() => planTopics({ ...defaultTopicNames, dataHubUsageEvent: ' ' }, settings)).toThrow(
      'Topic dataHubUsageEvent has no name',
    );
  });

  it.each<[string, Partial<TopicSettings>, string]>([
    ['no partitions', { partitions: 0 }, 'partitions must be an integer of at least 1'],
    ['a fraction of a partition', { partitions: 1.5 }, 'partitions must be an integer of at least 1'],
    ['no replicas', { replicationFactor: 0 }, 'replicationFactor must be an integer of at least 1'],
    ['a zero retention', { retentionMs: 0 }, 'retentionMs must be -1 (keep forever) or a positive number'],
    ['a negative reply retention', { replyRetentionMs: -5 }, 'replyRetentionMs must be -1 (keep forever)'],
    ['no room for a message', { maxMessageBytes: 0 }, 'maxMessageBytes must be an integer of at least 1'],
  ])('refuses %s', (_case, change, message) => {
    expect(() => planTopics(defaultTopicNames, { ...settings, ...change })).toThrow(message);
  });
});
