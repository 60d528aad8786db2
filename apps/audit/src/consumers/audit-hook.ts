/**
 * The audit hook: records each change of the catalog (a versioned change log) as an audit event, in one index write
 * per batch. Idempotent: an event is keyed by the change's identity, so a redelivered batch records the same events.
 * Not a read model: nobody's write waits for the trail.
 */
import { SYSTEM_ACTOR_URN } from '@strata/model';
import { RecordHeader } from '@strata/events';
import type { ChangeLogEvent, ChangeLogHook } from '@strata/change-log';
import type { AuditIndex } from '@strata/indices';
import { auditEventOfChange, type AuditedAspects, type Change } from '../domain/audit-events';

export function auditHook(index: AuditIndex, audited: AuditedAspects): ChangeLogHook {
  return {
    name: 'audit',
    consumes: ['versioned'],
    servesReads: false,
    // Who changed what, never the value: the values are not even parsed.
    readsValues: false,
    // A replay of the primary store is not a change: the restatements are not even decoded.
    appliesRestatements: false,
    apply: (events) => index.record(events.flatMap((event) => auditEventOfChange(changeOf(event), audited) ?? [])),
  };
}

/** A decoded change log as the domain takes it: its identity, stamp and the origin its headers carry. */
export function changeOf(event: ChangeLogEvent): Change {
  const { headers, topic, partition, offset, timestamp } = event.record;
  return {
    id: headers[RecordHeader.changeId] ?? `${topic}/${partition}/${offset}`,
    entityUrn: event.urn,
    entityType: event.entity.name,
    aspectName: event.aspect.name,
    changeType: event.changeType,
    time: event.created?.time ?? timestamp,
    actor: event.created?.actor ?? headers[RecordHeader.actor] ?? SYSTEM_ACTOR_URN,
    sourceIp: headers[RecordHeader.sourceIp],
    userAgent: headers[RecordHeader.userAgent],
    eventSource: headers[RecordHeader.eventSource],
    traceId: headers[RecordHeader.traceId],
  };
}
