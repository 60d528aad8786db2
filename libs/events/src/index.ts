export { createEventSerde, schemaIdOf, UndecodableRecordError } from './event-serde';
export type { EventCodec, EventSerde } from './event-serde';
export { defaultTopicNames, topicNamesFrom } from './topics';
export type { TopicNames } from './topics';
export { originHeaders, PROPAGATED_HEADERS, RecordHeader } from './record-headers';
export type { RequestOrigin } from './record-headers';
export type * from './generated/records';
export { decodeUsageEvent, encodeUsageEvent } from './usage-events';
export type { UsageEvent, UsageEventType } from './usage-events';
