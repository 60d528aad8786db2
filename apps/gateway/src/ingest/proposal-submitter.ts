import { errorFromCode, UnavailableError, type StrataError, type ValidatedProposal } from '@strata/model';
import {
  originHeaders,
  RecordHeader,
  type RequestOrigin,
  type EventSerde,
  type MetadataChangeProposal,
  type MetadataChangeProposalOutcome,
  type TopicNames,
} from '@strata/events';
import type { MessageLog } from '@strata/log';
import { TimeSlice } from '@strata/timing';
import type { OutcomeListener, SkippedIndexing } from '../consumers/outcome-listener';
import type { WriteAuthorization } from '../auth/authorizer';
import type { WriteSwitch } from './write-switch';

/** Who submits, from where (carried to the change logs, for the audit trail), and how to correlate what follows. */
export interface Submission extends RequestOrigin {
  /** How these writes are authorized: every submission says (see {@link WriteAuthorization}). */
  readonly authorization: WriteAuthorization;
  /** Wait for the writer's outcome (DataHub's synchronous ingest) or answer once the log holds the proposals. */
  readonly wait: boolean;
  /** Also wait until every awaited indexer has applied the proposals' change logs (read-your-writes in search). */
  readonly waitForIndexing?: boolean;
  /** How long to wait for the outcomes, when longer than the deployment's setting (a large rollback). */
  readonly outcomeTimeoutMs?: number;
}

export interface SubmitResult {
  /** One per proposal, in order; empty when not waiting. */
  readonly outcomes: readonly MetadataChangeProposalOutcome[];
  /** The request id of each proposal (the outcome topic's correlation id). */
  readonly proposalIds: readonly string[];
  /** When waiting for indexing: read models that skipped a change log of these proposals (reads will not show it). */
  readonly skippedIndexing: readonly SkippedIndexing[];
}

export interface ProposalSubmitterOptions {
  readonly log: MessageLog;
  readonly serde: EventSerde;
  readonly topics: TopicNames;
  readonly outcomes: Pick<OutcomeListener, 'expect' | 'expectIndexing' | 'cancel'>;
  /** How long a synchronous request waits for its outcome before answering 504, and again for its indexing. */
  readonly outcomeTimeoutMs: number;
  /**
   * The read models of the deployment (change-log hooks serving reads, as the services publish them): a request
   * waiting for indexing waits for those consuming the topics its proposals produced change logs on.
   */
  readonly readModels: readonly ReadModel[];
  /**
   * Checks a submission's writes as its authorization says, before anything is published, and answers them as they
   * go on the log (a check may add a precondition); throws the 401 or 403. Absent: every write goes as it is (a
   * gateway in a test of something else).
   */
  readonly authorize?: (
    authorization: WriteAuthorization,
    proposals: readonly ValidatedProposal[],
  ) => Promise<readonly ValidatedProposal[]>;
  /**
   * Refuses every submission but the system's own (`authorization.kind` `system`: the gateway's writes at start) while
   * writes are switched off (DataHub's `setWritable`). Absent: writes are always on.
   */
  readonly writeSwitch?: Pick<WriteSwitch, 'assertOn'>;
}

/**
 * A proposal an asynchronous ingest accepts although it is invalid: DataHub takes such a batch once it is on the log
 * and refuses the invalid proposals one by one as it applies them. It goes on the log as received (plain JSON, which
 * the writer reads), marked with the refusal (`strata-refusal`): the writer refuses it with that reason — an outcome,
 * a failed-proposal record, a write trace — and never applies it, so it needs no authorization.
 */
export interface RefusedProposal {
  readonly refused: StrataError;
  /** The proposal as the client sent it. */
  readonly input: Readonly<Record<string, unknown>>;
}

/** What a submission publishes: proposals to apply, and (asynchronous ingest only) proposals to refuse. */
export type SubmittedProposal = ValidatedProposal | RefusedProposal;

function isRefused(proposal: SubmittedProposal): proposal is RefusedProposal {
  return 'refused' in proposal;
}

/** A read model, as the gateway learns it: its name and the change-log topics it consumes. */
export interface ReadModel {
  readonly name: string;
  readonly topics: readonly string[];
}

/**
 * Checks and publishes validated proposals on `MetadataChangeProposal_v1` — all of one request in one append, keyed by entity URN
 * so that each entity's changes apply in order — and, for synchronous requests, waits for their outcomes. A rejected
 * proposal surfaces as its typed error (e.g. 422), so the HTTP edge maps it like any other.
 */
export class ProposalSubmitter {
  constructor(private readonly options: ProposalSubmitterOptions) {}

  /** Checks writes as `authorization` says without publishing them (a request that checks before it does several). */
  async authorize(
    authorization: WriteAuthorization,
    proposals: readonly ValidatedProposal[],
  ): Promise<readonly ValidatedProposal[]> {
    return this.options.authorize === undefined ? proposals : this.options.authorize(authorization, proposals);
  }

  async submit(requested: readonly SubmittedProposal[], submission: Submission): Promise<SubmitResult> {
    // The gateway's own writes at start (the bootstrap, the root password) are not the clients' to hold back.
    if (submission.authorization.kind !== 'system') await this.options.writeSwitch?.assertOn();
    const proposals = await this.authorizeValid(submission.authorization, requested);
    const proposalIds =
      proposals.length === 1
        ? [submission.requestId]
        : proposals.map((_proposal, index) => `${submission.requestId}/${index}`);
    // Encoding a large aspect takes a while: between proposals, the event loop gets a turn once a slice is spent.
    const slice = new TimeSlice();
    const records = [];
    for (const [index, proposal] of proposals.entries()) {
      const headers = {
        ...originHeaders({ ...submission, requestId: proposalIds[index] ?? submission.requestId }),
        ...(submission.waitForIndexing === true ? { [RecordHeader.awaitIndexing]: 'true' } : {}),
      };
      records.push(
        isRefused(proposal)
          ? {
              topic: this.options.topics.metadataChangeProposal,
              key: typeof proposal.input['entityUrn'] === 'string' ? proposal.input['entityUrn'] : '',
              value: Buffer.from(JSON.stringify(proposal.input), 'utf8'),
              headers: {
                ...headers,
                [RecordHeader.refusal]: proposal.refused.message,
                [RecordHeader.refusalCode]: proposal.refused.code,
              },
            }
          : {
              topic: this.options.topics.metadataChangeProposal,
              key: proposal.urn.toString(),
              value: this.options.serde.proposal.encode(this.toRecord(proposal)),
              headers,
            },
      );
      await slice.pause();
    }
    const timeoutMs = Math.max(this.options.outcomeTimeoutMs, submission.outcomeTimeoutMs ?? 0);
    const waiting = submission.wait
      ? this.options.outcomes.expect(proposalIds, timeoutMs, submission.requestId)
      : undefined;
    // Registered before publishing, like the outcome: an acknowledgement must not slip past.
    const indexing =
      submission.waitForIndexing === true ? this.options.outcomes.expectIndexing(proposalIds) : undefined;
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
    let skippedIndexing: readonly SkippedIndexing[] = [];
    if (indexing) {
      if (rejected.length > 0) indexing.cancel();
      else {
        skippedIndexing = await indexing.wait(
          this.awaitedReadModels(outcomes),
          this.options.outcomeTimeoutMs,
          submission.requestId,
        );
      }
    }
    if (rejected.length > 0) throw rejectionOf(outcomes);
    return { outcomes, proposalIds, skippedIndexing };
  }

  /**
   * Authorizes the proposals to apply, as {@link authorize} does, keeping those to refuse in their places: they write
   * nothing, so they need no right.
   */
  private async authorizeValid(
    authorization: WriteAuthorization,
    requested: readonly SubmittedProposal[],
  ): Promise<readonly SubmittedProposal[]> {
    const valid = requested.filter((proposal): proposal is ValidatedProposal => !isRefused(proposal));
    const authorized = await this.authorize(authorization, valid);
    if (authorized.length !== valid.length) throw new Error('Authorizing writes must answer each of them, in order');
    let next = 0;
    return requested.map((proposal) => (isRefused(proposal) ? proposal : (authorized[next++] ?? proposal)));
  }

  /**
   * For each applied proposal, the read models that consume a topic it produced change logs on (the writer marked
   * the last change log on each of those topics to be acknowledged). Outcomes of a writer that did not report topics
   * count their versioned change logs.
   */
  private awaitedReadModels(outcomes: readonly MetadataChangeProposalOutcome[]): Map<string, string[]> {
    const awaited = new Map<string, string[]>();
    for (const outcome of outcomes) {
      if (outcome.status !== 'APPLIED') continue;
      const topics =
        outcome.changeLogTopics.length > 0
          ? outcome.changeLogTopics
          : (outcome.indexedChangeLogs ?? 0) > 0
            ? [this.options.topics.metadataChangeLogVersioned]
            : [];
      const readModels = this.options.readModels
        .filter((model) => model.topics.some((topic) => topics.includes(topic)))
        .map((model) => model.name);
      if (readModels.length > 0) awaited.set(outcome.requestId, readModels);
    }
    return awaited;
  }

  private toRecord(proposal: ValidatedProposal): MetadataChangeProposal {
    return {
      auditHeader: null,
      entityType: proposal.entity.name,
      entityUrn: proposal.urn.toString(),
      entityKeyAspect: null,
      changeType: proposal.changeType,
      aspectName: proposal.aspect.name,
      aspect: aspectRecordOf(proposal),
      systemMetadata: proposal.systemMetadata
        ? this.options.serde.toSystemMetadataRecord(proposal.systemMetadata)
        : null,
      headers: Object.keys(proposal.headers).length > 0 ? { ...proposal.headers } : null,
    };
  }
}

/** The proposal's aspect as the record carries it: the validated value, or a PATCH's operations as received. */
function aspectRecordOf(proposal: ValidatedProposal): MetadataChangeProposal['aspect'] {
  if (proposal.patch !== undefined) {
    const text = JSON.stringify(proposal.patch.document);
    return { value: Buffer.from(text, 'utf8'), contentType: 'application/json-patch+json' };
  }
  if (proposal.value === undefined) return null;
  return { value: Buffer.from(JSON.stringify(proposal.value), 'utf8'), contentType: 'application/json' };
}

/**
 * The error of a request with refused proposals. One proposal: its own error. Several: a batch is applied proposal by
 * proposal (each travels keyed by its own entity, ADR 11), so the answer says exactly which were applied, with their
 * versions, and why each other one was refused — in the message and, per proposal, in the error's details.
 */
function rejectionOf(outcomes: readonly MetadataChangeProposalOutcome[]): Error {
  const rejected = outcomes.filter((outcome) => outcome.status === 'REJECTED');
  const first = rejected[0];
  const code = first?.errorCode ?? 'validation';
  if (outcomes.length === 1) return errorFromCode(code, first?.error ?? 'rejected');
  const accepted = outcomes.length - rejected.length;
  const summary =
    accepted === 0
      ? `All ${outcomes.length} proposals were refused; nothing was applied.`
      : `${rejected.length} of ${outcomes.length} proposals were refused; the other ${accepted} ${accepted === 1 ? 'was' : 'were'} applied (a batch is applied proposal by proposal, not all or nothing).`;
  const lines = outcomes.map((outcome, index) => {
    if (outcome.status === 'REJECTED') return `proposals[${index}]: refused: ${outcome.error ?? 'rejected'}`;
    if (outcome.status === 'UNCHANGED') return `proposals[${index}]: applied, unchanged`;
    return `proposals[${index}]: applied${outcome.version === null ? '' : `, version ${outcome.version}`}`;
  });
  return errorFromCode(code, [summary, ...lines].join('\n'), {
    outcomes: outcomes.map((outcome, index) => ({
      index,
      entityUrn: outcome.entityUrn,
      aspectName: outcome.aspectName,
      status: outcome.status,
      ...(outcome.version === null ? {} : { version: outcome.version }),
      ...(outcome.status === 'REJECTED' ? { error: outcome.error ?? 'rejected' } : {}),
    })),
  });
}
