import { errorFromCode, UnavailableError, type ValidatedProposal } from '@strata/model';
import {
  RecordHeader,
  type EventSerde,
  type MetadataChangeProposal,
  type MetadataChangeProposalOutcome,
  type TopicNames,
} from '@strata/events';
import type { MessageLog } from '@strata/log';
import type { OutcomeListener } from '../consumers/outcome-listener';

/** Who submits, and how to correlate what follows. */
export interface Submission {
  readonly requestId: string;
  readonly actor: string;
  readonly traceId: string;
  /** Wait for the writer's outcome (DataHub's synchronous ingest) or answer once the log holds the proposals. */
  readonly wait: boolean;
  /** Also wait until every awaited indexer has applied the proposals' change logs (read-your-writes in search). */
  readonly waitForIndexing?: boolean;
}

export interface SubmitResult {
  /** One per proposal, in order; empty when not waiting. */
  readonly outcomes: readonly MetadataChangeProposalOutcome[];
  /** The request id of each proposal (the outcome topic's correlation id). */
  readonly proposalIds: readonly string[];
}

export interface ProposalSubmitterOptions {
  readonly log: MessageLog;
  readonly serde: EventSerde;
  readonly topics: TopicNames;
  readonly outcomes: OutcomeListener;
  /** How long a synchronous request waits for its outcome before answering 504, and again for its indexing. */
  readonly outcomeTimeoutMs: number;
  /** The indexers whose acknowledgements a request waiting for indexing needs (`search-indexer`). */
  readonly awaitedIndexers: readonly string[];
}

/**
 * Publishes validated proposals on `MetadataChangeProposal_v1` — all of one request in one append, keyed by entity URN
 * so that each entity's changes apply in order — and, for synchronous requests, waits for their outcomes. A rejected
 * proposal surfaces as its typed error (e.g. 422), so the HTTP edge maps it like any other.
 */
export class ProposalSubmitter {
  constructor(private readonly options: ProposalSubmitterOptions) {}

  async submit(proposals: readonly ValidatedProposal[], submission: Submission): Promise<SubmitResult> {
    const proposalIds =
      proposals.length === 1
        ? [submission.requestId]
        : proposals.map((_proposal, index) => `${submission.requestId}/${index}`);
    const records = proposals.map((proposal, index) => ({
      topic: this.options.topics.metadataChangeProposal,
      key: proposal.urn.toString(),
      value: this.options.serde.proposal.encode(this.toRecord(proposal)),
      headers: {
        [RecordHeader.requestId]: proposalIds[index] ?? submission.requestId,
        [RecordHeader.actor]: submission.actor,
        [RecordHeader.traceId]: submission.traceId,
        ...(submission.waitForIndexing === true ? { [RecordHeader.awaitIndexing]: 'true' } : {}),
      },
    }));
    const waiting = submission.wait
      ? this.options.outcomes.expect(proposalIds, this.options.outcomeTimeoutMs, submission.requestId)
      : undefined;
    // Registered before publishing, like the outcome: an acknowledgement must not slip past.
    const indexing =
      submission.waitForIndexing === true
        ? this.options.outcomes.expectIndexing(proposalIds, this.options.awaitedIndexers)
        : undefined;
    try {
      await this.options.log.publish(records);
    } catch (error) {
      this.options.outcomes.cancel(proposalIds);
      indexing?.cancel();
      throw new UnavailableError('The message log is unavailable: the write was not accepted. Retry it.', {
        cause: error,
      });
    }
    let outcomes: MetadataChangeProposalOutcome[];
    try {
      outcomes = waiting ? await waiting : [];
    } catch (error) {
      indexing?.cancel();
      throw error;
    }
    const rejected = outcomes.filter((outcome) => outcome.status === 'REJECTED');
    if (indexing) {
      if (rejected.length > 0) indexing.cancel();
      else {
        // Only proposals that changed a versioned aspect produce change logs for the indexers to acknowledge.
        const indexed = outcomes
          .filter((outcome) => outcome.status === 'APPLIED' && (outcome.indexedChangeLogs ?? 0) > 0)
          .map((outcome) => outcome.requestId);
        await indexing.wait(indexed, this.options.outcomeTimeoutMs, submission.requestId);
      }
    }
    if (rejected.length > 0) {
      const first = rejected[0];
      const message = rejected.map((outcome) => outcome.error ?? 'rejected').join('\n');
      throw errorFromCode(first?.errorCode ?? 'validation', message);
    }
    return { outcomes, proposalIds };
  }

  private toRecord(proposal: ValidatedProposal): MetadataChangeProposal {
    return {
      auditHeader: null,
      entityType: proposal.entity.name,
      entityUrn: proposal.urn.toString(),
      entityKeyAspect: null,
      changeType: proposal.changeType,
      aspectName: proposal.aspect.name,
      aspect: proposal.value
        ? { value: Buffer.from(JSON.stringify(proposal.value), 'utf8'), contentType: 'application/json' }
        : null,
      systemMetadata: proposal.systemMetadata
        ? this.options.serde.toSystemMetadataRecord(proposal.systemMetadata)
        : null,
      headers: Object.keys(proposal.headers).length > 0 ? { ...proposal.headers } : null,
    };
  }
}
