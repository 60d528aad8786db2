import { parseArgs } from 'node:util';
import { ConfigError, kafkaBrokers } from '@strata/config';
import { planTopics, topicNamesFrom, type TopicPlan } from '@strata/events';
import { ensureKafkaTopics, type KafkaTopicOutcome } from '@strata/log';
import { loadInitConfig } from './init-config';

const USAGE = `Usage: node apps/standalone/dist/init.js   (in the image: the "init" command)

Creates the topics of Strata's log on the Kafka cluster of KAFKA_BROKERS, each with the partitions, replication and
retention of KAFKA_TOPIC_* (docs/configuration.md), under the names the *_TOPIC_NAME variables give. Topics that exist
are left as they are. Run it before the services start, once per deployment and again on every upgrade: it is
idempotent. Elasticsearch indices are not made here: each service creates its own when it starts.`;

/**
 * The initialisation of a distributed deployment: the log's topics, planned by `planTopics` (a pure function of the
 * configuration) and created by `ensureKafkaTopics`. Docker Compose runs it as a one-shot service and Helm as a hook
 * Job before the services start (docs/deploy.md).
 */
async function main(argv: readonly string[]): Promise<number> {
  try {
    const { values } = parseArgs({ args: [...argv], options: { help: { type: 'boolean', short: 'h' } } });
    if (values.help === true) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const config = loadInitConfig(process.env);
  const brokers = kafkaBrokers(config.KAFKA_BROKERS);
  if (brokers === undefined) throw new ConfigError(['KAFKA_BROKERS: names no broker']);
  const plan = planTopics(topicNamesFrom(config), {
    partitions: config.KAFKA_TOPIC_PARTITIONS,
    replicationFactor: config.KAFKA_TOPIC_REPLICATION_FACTOR,
    retentionMs: config.KAFKA_TOPIC_RETENTION_MS,
    replyRetentionMs: config.KAFKA_REPLY_TOPIC_RETENTION_MS,
    maxMessageBytes: config.KAFKA_TOPIC_MAX_MESSAGE_BYTES,
  });
  process.stdout.write(`Creating the log's topics on ${brokers.join(', ')}\n`);
  const outcomes = await ensureKafkaTopics({ brokers, clientId: `${config.KAFKA_CLIENT_ID}-init` }, plan);
  for (const [index, outcome] of outcomes.entries()) {
    const topic = plan[index];
    if (topic !== undefined) process.stdout.write(`${describeOutcome(topic, outcome)}\n`);
  }
  process.stdout.write('Topics ready. Elasticsearch indices are created by their services when they start.\n');
  return 0;
}

function describeOutcome(topic: TopicPlan, outcome: KafkaTopicOutcome): string {
  const settings = Object.entries(topic.config)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  if (outcome.status === 'created') {
    return `  created ${topic.name} (${topic.purpose}): ${outcome.partitions} partitions, ${topic.replicationFactor} replicas, ${settings}`;
  }
  const differs =
    outcome.partitions === outcome.plannedPartitions
      ? ''
      : ` (KAFKA_TOPIC_PARTITIONS says ${outcome.plannedPartitions}; a partition count is never changed)`;
  return `  exists  ${topic.name} (${topic.purpose}): ${outcome.partitions} partitions${differs}, left as it is`;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`Initialisation failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
