import { errorFromCode, type StrataError } from '@strata/model';
import { RecordHeader } from '@strata/events';
import type { LogRecord } from '@strata/log';
import type { AspectMutation, NewWriteTrace } from '@strata/store';
import type { ChangeLogDraft, ProposalOutcome } from '../domain/decide';

/**
 * The refusal a gateway attached to a proposal it put on the log without applying it (an asynchronous ingest of an
 * invalid proposal: `strata-refusal`), or undefined. Such a proposal is refused with that reason whatever the writer's
 * own validation says: the gateway found it invalid, so it was never authorized to write anything.
 */
export function gatewayRefusalOf(record: LogRecord): StrataError | undefined {
  const reason = record.headers[RecordHeader.refusal];
  if (reason === undefined) return undefined;
  return errorFromCode(record.headers[RecordHeader.refusalCode] ?? 'validation', reason);
}

/** What a write trace records of one proposal, besides what it did: who, which trace, and when. */
export interface TracedProposal {
  readonly record: LogRecord;
  readonly proposalId: string;
  /** The (urn, aspect) the proposal names, as far as it decoded; undefined when it names none. */
  readonly urn: string | undefined;
  readonly aspect: string | undefined;
}

/**
 * The write trace of one proposal (its own urn and aspect; the side effects of its decision are not traced), or
 * undefined for a proposal without a trace id (a direct producer's) or that names no urn and aspect. An applied
 * version is identified by its ordinal and `createdOn` (the put of the decision that wrote it).
 */
export function writeTraceOf(
  proposal: TracedProposal,
  outcome: ProposalOutcome,
  decision: { readonly mutations: readonly AspectMutation[]; readonly changeLogs: readonly ChangeLogDraft[] },
  recordedAt: number,
): NewWriteTrace | undefined {
  const traceId = proposal.record.headers[RecordHeader.traceId];
  const { urn, aspect } = proposal;
  if (traceId === undefined || traceId === '' || urn === undefined || urn === '' || !aspect) return undefined;
  const base = { traceId, urn, aspect, proposalId: proposal.proposalId, recordedAt };
  if (outcome.status === 'REJECTED') {
    return {
      ...base,
      status: 'REJECTED',
      version: null,
      createdOn: null,
      errorCode: outcome.errorCode,
      error: outcome.error,
      changeLogged: false,
    };
  }
  const version = outcome.version ?? null;
  const written = decision.mutations.find(
    (mutation): mutation is Extract<AspectMutation, { kind: 'put' }> =>
      mutation.kind === 'put' && mutation.urn === urn && mutation.aspect === aspect && mutation.row.version === version,
  );
  return {
    ...base,
    status: outcome.status,
    version,
    createdOn: outcome.status === 'APPLIED' && written !== undefined ? written.row.createdOn : null,
    errorCode: null,
    error: null,
    changeLogged: decision.changeLogs.some(
      (draft) => !draft.timeseries && draft.entityUrn === urn && draft.aspectName === aspect,
    ),
  };
}
