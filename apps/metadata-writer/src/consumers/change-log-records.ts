import { RecordHeader, type EventSerde, type TopicNames } from '@strata/events';
import type { OutboxRecord } from '@strata/store';
import type { ChangeLogDraft } from '../domain/decide';

/**
 * The outbox record of a change log: DataHub's `MetadataChangeLog` on the versioned or the timeseries topic, keyed by
 * the entity's URN, values as JSON in `GenericAspect`s.
 */
export function changeLogRecordOf(
  { serde, topics }: { readonly serde: EventSerde; readonly topics: TopicNames },
  draft: ChangeLogDraft,
  headers: Readonly<Record<string, string>>,
): OutboxRecord {
  const generic = (value: object | undefined) =>
    value === undefined ? null : { value: Buffer.from(JSON.stringify(value), 'utf8'), contentType: 'application/json' };
  const systemMetadata = (value: Record<string, unknown> | undefined) =>
    value === undefined ? null : serde.toSystemMetadataRecord(value);
  return {
    topic: draft.timeseries ? topics.metadataChangeLogTimeseries : topics.metadataChangeLogVersioned,
    key: draft.entityUrn,
    headers: { ...headers, [RecordHeader.changeType]: draft.changeType },
    value: serde.changeLog.encode({
      auditHeader: null,
      entityType: draft.entityType,
      entityUrn: draft.entityUrn,
      entityKeyAspect: null,
      changeType: draft.changeType,
      aspectName: draft.aspectName,
      aspect: generic(draft.aspect),
      systemMetadata: systemMetadata(draft.systemMetadata),
      headers: Object.keys(draft.headers).length > 0 ? { ...draft.headers } : null,
      previousAspectValue: generic(draft.previousAspectValue),
      previousSystemMetadata: systemMetadata(draft.previousSystemMetadata),
      created: { time: draft.created.time, actor: draft.created.actor, impersonator: null, message: null },
    }),
  };
}
