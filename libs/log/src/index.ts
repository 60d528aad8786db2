export type {
  BatchHandler,
  GroupPosition,
  LogRecord,
  MessageLog,
  OutgoingRecord,
  SubscribeOptions,
  Subscription,
  TopicRead,
  TopicReadResult,
} from './message-log';
export { SqliteMessageLog } from './sqlite-message-log';
export type { SqliteMessageLogErrorContext, SqliteMessageLogOptions } from './sqlite-message-log';
export { KafkaMessageLog } from './kafka-message-log';
export type {
  KafkaMessageLogEntry,
  KafkaMessageLogErrorContext,
  KafkaMessageLogLevel,
  KafkaMessageLogOptions,
} from './kafka-message-log';
export { applyTopicPlan, ensureKafkaTopics } from './ensure-kafka-topics';
export type {
  EnsureKafkaTopicsOptions,
  KafkaTopicAdmin,
  KafkaTopicOutcome,
  KafkaTopicSpec,
} from './ensure-kafka-topics';
