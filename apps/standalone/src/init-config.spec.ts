import { ConfigError } from '@strata/config';
import { loadInitConfig } from './init-config';

function problemsOf(environment: Record<string, string>): string {
  try {
    loadInitConfig(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.join('\n');
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('topic initialisation configuration', () => {
  it('plans six partitions, one replica, a week of records and an hour of replies by default', () => {
    expect(loadInitConfig({ KAFKA_BROKERS: 'kafka:9092' })).toMatchObject({
      KAFKA_BROKERS: 'kafka:9092',
      KAFKA_TOPIC_PARTITIONS: 6,
      KAFKA_TOPIC_REPLICATION_FACTOR: 1,
      KAFKA_TOPIC_RETENTION_MS: 604_800_000,
      KAFKA_REPLY_TOPIC_RETENTION_MS: 3_600_000,
      KAFKA_TOPIC_MAX_MESSAGE_BYTES: 67_108_864,
      METADATA_CHANGE_PROPOSAL_TOPIC_NAME: 'MetadataChangeProposal_v1',
    });
  });

  it('requires the Kafka cluster', () => {
    expect(problemsOf({})).toMatch(/KAFKA_BROKERS: is required/);
  });

  it('keeps records forever with a retention of -1, and refuses retentions shorter than a minute', () => {
    expect(loadInitConfig({ KAFKA_BROKERS: 'kafka:9092', KAFKA_TOPIC_RETENTION_MS: '-1' })).toMatchObject({
      KAFKA_TOPIC_RETENTION_MS: -1,
    });
    expect(problemsOf({ KAFKA_BROKERS: 'kafka:9092', KAFKA_REPLY_TOPIC_RETENTION_MS: '0' })).toMatch(
      /KAFKA_REPLY_TOPIC_RETENTION_MS: must be -1 \(keep forever\) or at least 60000/,
    );
  });

  it('refuses no partitions, and a batch limit under a mebibyte', () => {
    const problems = problemsOf({
      KAFKA_BROKERS: 'kafka:9092',
      KAFKA_TOPIC_PARTITIONS: '0',
      KAFKA_TOPIC_MAX_MESSAGE_BYTES: '1000',
    });

    expect(problems).toMatch(/KAFKA_TOPIC_PARTITIONS/);
    expect(problems).toMatch(/KAFKA_TOPIC_MAX_MESSAGE_BYTES/);
  });
});
