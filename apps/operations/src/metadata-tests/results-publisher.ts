import { originHeaders, type EventSerde, type TopicNames } from '@strata/events';
import type { MessageLog } from '@strata/log';
import { SYSTEM_ACTOR_URN } from '@strata/model';
import type { IdentifiedPush } from './test-upkeep';

/**
 * Publishes `testResults` pushes as ordinary proposals of the system actor on `MetadataChangeProposal_v1`, keyed by
 * entity URN like every proposal, so that each applies in order with the entity's other changes. The writer validates
 * and applies them as it does any proposal on the log; each push's request id makes a second publication of it
 * (a change log delivered again) apply once.
 */
export function resultsPublisher(
  log: MessageLog,
  serde: EventSerde,
  topics: TopicNames,
): (pushes: readonly IdentifiedPush[]) => Promise<void> {
  return (pushes) =>
    log.publish(
      pushes.map((push) => ({
        topic: topics.metadataChangeProposal,
        key: push.urn,
        headers: originHeaders({ requestId: push.requestId, actor: SYSTEM_ACTOR_URN, traceId: push.requestId }),
        value: serde.proposal.encode({
          auditHeader: null,
          entityType: push.entityType,
          entityUrn: push.urn,
          entityKeyAspect: null,
          changeType: 'UPSERT',
          aspectName: push.aspectName,
          aspect: { value: Buffer.from(JSON.stringify(push.value), 'utf8'), contentType: 'application/json' },
          systemMetadata: null,
          headers: null,
        }),
      })),
    );
}
