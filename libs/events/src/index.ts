export { createEventSerde, schemaIdOf, UndecodableRecordError } from './event-serde';
export type { EventCodec, EventSerde } from './event-serde';
export { defaultTopicNames, topicNamesFrom } from './topics';
export type { TopicNames } from './topics';
export { RecordHeader } from './record-headers';
export type * from './generated/records';
