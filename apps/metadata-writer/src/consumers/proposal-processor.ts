/**
 * Applies proposals from `MetadataChangeProposal_v1` to the primary store.
 *
 * Delivery policy:
 * - At least once in, effectively once applied. Each proposal has an id (its gateway request id, or else its log
 *   position); the id is recorded in the same store commit as its effects, so a redelivered proposal is recognised and
 *   skipped instead of creating a second version.
 * - No lost change log. Change logs, outcomes and failure records are written to the store's outbox in that same
 *   commit and published by the {@link OutboxRelay} afterwards; a crash between storing and publishing leaves them
 *   pending, and the relay publishes them when the writer starts again.
 * - The batch is committed to the log only after its store commit is durable (the handler resolves after it).
 * - Records that cannot be decoded or fail validation are answered with a REJECTED outcome (when they carry a request
 *   id) and a `FailedMetadataChangeProposal_v1` record with the reason, and are committed past: one bad record never
 *   stops the stream. Every refusal (those, and proposals the decision rejects) is logged once its commit is durable.
 *   A record the gateway marked refused (`strata-refusal`: an asynchronous ingest puts invalid proposals on the log
 *   too) is refused with the gateway's reason, whatever the writer's own validation would say.
 * - What each proposal carrying a trace id did to its (urn, aspect) — applied (which version), unchanged, refused (why)
 *   — is recorded as a write trace in the same commit, for DataHub's trace API.
 * - A write to a dataset's `schemaMetadata`, `status` or key carries its effects on the dataset's `schemaField`
 *   entities in the same commit, their change logs before its own (`withSchemaFieldEffects`). A batch commits what it
 *   decided once it holds {@link COMMIT_AFTER_MUTATIONS} mutations; one proposal's effects are never split.
 * - A concurrent writer changing an aspect under us (`ConflictError`) makes the batch re-read and decide again; other
 *   errors (store unavailable) reject the batch, which the log redelivers after a backoff.
 *
 * Decoding, validating and encoding a large aspect (a few megabytes) takes tens of milliseconds a step; between steps
 * the processor gives the event loop a turn once it has held it for a slice ({@link TimeSlice}), so that a service
 * sharing the process (the standalone one) keeps answering.
 */
import {
  ConflictError,
  StrataError,
  ValidationError,
  timeRangeOf,
  timeseriesRunOf,
  validateProposal,
  type EntityRegistry,
  type ValidatedProposal,
} from '@strata/model';
import {
  PROPAGATED_HEADERS,
  RecordHeader,
  type EventSerde,
  type MetadataChangeProposal,
  type TopicNames,
} from '@strata/events';
import type { LogRecord } from '@strata/log';
import type { AspectKey, AspectMutation, AspectStore, NewWriteTrace, OutboxRecord, StoredAspect } from '@strata/store';
import { TimeSlice } from '@strata/timing';
import { decide, type Decision, type ProposalOutcome } from '../domain/decide';
import { changeLogRecordOf } from './change-log-records';
import { defaultAspectNames } from '../domain/default-aspects';
import type { OutboxRelay } from './outbox-relay';
import { gatewayRefusalOf, writeTraceOf } from './write-trace-records';
import { withSchemaFieldEffects, type KnownAspects } from './schema-field-effects';

/** The part of a logger the processor needs (pino's signature). */
export interface ProposalProcessorLogger {
  warn(details: object, message: string): void;
}

export interface ProposalProcessorOptions {
  readonly store: AspectStore;
  readonly registry: EntityRegistry;
  readonly serde: EventSerde;
  readonly topics: TopicNames;
  readonly relay: OutboxRelay;
  /** The clock (injected). */
  readonly now: () => number;
  /** Actor recorded for proposals that name none (direct Kafka producers). */
  readonly systemActor: string;
  /** Largest serialized aspect accepted, in bytes. */
  readonly maxAspectBytes: number;
  /** How often a batch is re-decided after losing an optimistic-concurrency race before the log retries it. */
  readonly maxConflictRetries?: number;
  /**
   * The marks a change of `aspect` of `urn` (undefined: the entity deleted) sets, in the same commit, so that readers
   * caching what they derived from it know to read again (the composition root derives them from what the gateway's
   * security checks read; docs/adr/0020). Default: none.
   */
  readonly marksOf?: (urn: string, aspect: string | undefined) => readonly string[];
  /**
   * Where each refused proposal is logged, once (after the commit recording its refusal): urn, aspect, change type,
   * request id, actor and the reason — never the aspect's value.
   */
  readonly logger: ProposalProcessorLogger;
}

/**
 * A batch whose decisions hold this many mutations commits them before deciding more. One proposal's effects are never
 * split (a schema of 10,000 fields writes some 30,000 rows with it, in one commit); a batch of many such proposals is.
 */
const COMMIT_AFTER_MUTATIONS = 20_000;

/** A proposal refused by the batch being decided: logged once the batch's commit is durable. */
interface Refusal {
  readonly candidate: Candidate;
  readonly outcome: Extract<ProposalOutcome, { status: 'REJECTED' }>;
}

/** One record of a batch, decoded and validated as far as it goes: either a valid proposal or the reason it is not. */
type Candidate = {
  readonly record: LogRecord;
  readonly proposalId: string;
  readonly requestId: string | undefined;
  readonly actor: string;
  readonly decoded: MetadataChangeProposal | undefined;
} & (
  | { readonly proposal: ValidatedProposal; readonly failure?: never }
  | { readonly proposal?: never; readonly failure: StrataError }
);

export class ProposalProcessor {
  private readonly maxConflictRetries: number;

  constructor(private readonly options: ProposalProcessorOptions) {
    this.maxConflictRetries = options.maxConflictRetries ?? 5;
  }

  /** The log's batch handler. Resolves once the batch's effects are durable in the store. */
  async handleBatch(records: readonly LogRecord[]): Promise<void> {
    const slice = new TimeSlice();
    const candidates: Candidate[] = [];
    for (const record of records) candidates.push(await this.prepare(record, slice));
    for (let attempt = 0; ; attempt++) {
      try {
        await this.applyOnce(candidates, slice);
        break;
      } catch (error) {
        if (!(error instanceof ConflictError) || attempt >= this.maxConflictRetries) throw error;
      }
    }
    await this.options.relay.flush();
  }

  /**
   * The marks a proposal's mutations set: each mark they touch, valued with the proposal's id (unique, so that the
   * mark differs from any value a reader saw before).
   */
  private marks(mutations: readonly AspectMutation[], proposalId: string): AspectMutation[] {
    const marksOf = this.options.marksOf;
    if (marksOf === undefined) return [];
    const names = new Set<string>();
    for (const mutation of mutations) {
      const marks =
        mutation.kind === 'put' || mutation.kind === 'deleteAspect'
          ? marksOf(mutation.urn, mutation.aspect)
          : mutation.kind === 'deleteEntity'
            ? marksOf(mutation.urn, undefined)
            : [];
      for (const name of marks) names.add(name);
    }
    return [...names].map((name) => ({ kind: 'setMark', name, value: proposalId }));
  }

  private async prepare(record: LogRecord, slice: TimeSlice): Promise<Candidate> {
    const requestId = record.headers[RecordHeader.requestId];
    const base = {
      record,
      requestId,
      proposalId: requestId ?? `${record.topic}/${record.partition}/${record.offset}`,
      actor: record.headers[RecordHeader.actor] ?? this.options.systemActor,
    };
    let decoded: MetadataChangeProposal | undefined;
    const refusedByGateway = gatewayRefusalOf(record);
    if (refusedByGateway !== undefined) {
      // Not validated again: the gateway's verdict stands (the record decodes, or the failure record says what it held).
      try {
        decoded = this.options.serde.proposal.decodeAny(record.value);
      } catch {
        decoded = undefined;
      }
      return { ...base, decoded, failure: refusedByGateway };
    }
    try {
      decoded = this.options.serde.proposal.decodeAny(record.value);
      await slice.pause();
      const proposal = validateProposal(this.options.registry, toProposalInput(decoded), {
        maxAspectBytes: this.options.maxAspectBytes,
      });
      await slice.pause();
      return { ...base, decoded, proposal };
    } catch (error) {
      // A record that breaks validation in an unforeseen way is still that record's problem: it is answered and
      // committed past like any invalid record, rather than blocking its partition by failing the batch forever.
      const failure =
        error instanceof StrataError
          ? error
          : new ValidationError(
              `Proposal could not be validated: ${error instanceof Error ? error.message : String(error)}`,
            );
      return { ...base, decoded, failure };
    }
  }

  /** Reads the state the batch needs, decides every proposal in order, and commits the lot atomically. */
  private async applyOnce(candidates: readonly Candidate[], slice: TimeSlice): Promise<void> {
    const applied = await this.options.store.findApplied(candidates.map((candidate) => candidate.proposalId));
    const pending = candidates.filter((candidate) => !applied.has(candidate.proposalId));
    if (pending.length === 0) return;

    const state = new BatchState(await this.options.store.getLatest(stateKeys(pending)));
    let mutations: AspectMutation[] = [];
    let outbox: OutboxRecord[] = [];
    let decided: Candidate[] = [];
    let refused: Refusal[] = [];
    let traces: NewWriteTrace[] = [];
    const trace = (candidate: Candidate, outcome: ProposalOutcome, decision: Effects = NO_EFFECTS): void => {
      const urn = candidate.proposal?.urn.toString() ?? candidate.decoded?.entityUrn ?? candidate.record.key;
      const aspect = candidate.proposal?.aspect.name ?? candidate.decoded?.aspectName ?? undefined;
      const written = writeTraceOf({ ...candidate, urn, aspect }, outcome, decision, this.options.now());
      if (written !== undefined) traces.push(written);
    };
    const commit = async (): Promise<void> => {
      await this.options.store.commit({
        mutations,
        outbox,
        appliedProposalIds: decided.map((candidate) => candidate.proposalId),
        writeTraces: traces,
      });
      // Logged only now: a batch decided again after losing a race would otherwise log its refusals twice.
      for (const refusal of refused) this.logRefusal(refusal);
      [mutations, outbox, decided, refused, traces] = [[], [], [], [], []];
    };
    for (const candidate of pending) {
      // A delete reports how many timeseries values it removes: what the batch decided before it is committed first,
      // so that the store's count is exact.
      const counting = deletesTimeseries(candidate.proposal);
      if ((counting || mutations.length >= COMMIT_AFTER_MUTATIONS) && decided.length > 0) await commit();
      decided.push(candidate);
      const headers = recordHeaders(candidate.record);
      if (candidate.failure) {
        const { code, message } = candidate.failure;
        const outcome = { status: 'REJECTED', errorCode: code, error: message } as const;
        outbox.push(...this.rejection(candidate, outcome, headers));
        refused.push({ candidate, outcome });
        trace(candidate, outcome);
        continue;
      }
      const urn = candidate.proposal.urn.toString();
      const counts = counting ? { timeseriesRows: await this.timeseriesToDelete(candidate.proposal) } : undefined;
      let decision = decide(
        candidate.proposal,
        (aspect) => state.get(urn, aspect),
        { now: this.options.now(), actor: candidate.actor },
        counts,
      );
      if (decision.outcome.status === 'REJECTED') {
        outbox.push(...this.rejection(candidate, decision.outcome, headers));
        refused.push({ candidate, outcome: decision.outcome });
        trace(candidate, decision.outcome);
        continue;
      }
      const { store, registry } = this.options;
      decision = await withSchemaFieldEffects(decision, { store, registry, known: state, slice });
      state.apply(decision.mutations);
      mutations.push(...decision.mutations, ...this.marks(decision.mutations, candidate.proposalId));
      const changeLogs: OutboxRecord[] = [];
      for (const [index, draft] of decision.changeLogs.entries()) {
        changeLogs.push(
          changeLogRecordOf(this.options, draft, {
            ...headers,
            [RecordHeader.changeId]: `${candidate.proposalId}/${index}`,
          }),
        );
        // A schema's fields bring thousands of change logs with one proposal.
        await slice.pause();
      }
      // A proposal waiting for indexing marks the last change log on each topic: the read models consuming that topic
      // acknowledge it, and the change logs of one entity before it (same partition, in order) with it.
      if (candidate.record.headers[RecordHeader.awaitIndexing] === 'true') markLastPerTopic(changeLogs);
      outbox.push(...changeLogs);
      trace(candidate, decision.outcome, decision);
      if (candidate.requestId) {
        outbox.push(
          this.outcomeRecord(candidate, decision.outcome, headers, {
            indexedChangeLogs: decision.changeLogs.filter((draft) => !draft.timeseries).length,
            changeLogTopics: [...new Set(changeLogs.map((record) => record.topic))],
          }),
        );
      }
      await slice.pause();
    }
    await commit();
  }

  /**
   * How many timeseries values a DELETE removes: of every timeseries aspect of an entity, or of one in a range (of one
   * run, when the headers name it).
   */
  private timeseriesToDelete(proposal: ValidatedProposal): Promise<number> {
    const urn = proposal.urn.toString();
    if (proposal.aspect.kind === 'timeseries') {
      return this.options.store.countTimeseries(
        urn,
        [proposal.aspect.name],
        timeRangeOf(proposal.headers),
        timeseriesRunOf(proposal.headers),
      );
    }
    const aspects = proposal.entity.aspects
      .filter((aspect) => aspect.kind === 'timeseries')
      .map((aspect) => aspect.name);
    return this.options.store.countTimeseries(urn, aspects);
  }

  private outcomeRecord(
    candidate: Candidate,
    outcome: ProposalOutcome,
    headers: Record<string, string>,
    changeLogs: { readonly indexedChangeLogs: number; readonly changeLogTopics: string[] } = {
      indexedChangeLogs: 0,
      changeLogTopics: [],
    },
  ): OutboxRecord {
    const rejected = outcome.status === 'REJECTED';
    return {
      topic: this.options.topics.metadataChangeProposalOutcome,
      key: candidate.record.key,
      headers,
      value: this.options.serde.outcome.encode({
        requestId: candidate.requestId ?? candidate.proposalId,
        entityType: candidate.decoded?.entityType ?? '',
        entityUrn: candidate.decoded?.entityUrn ?? candidate.record.key,
        aspectName: candidate.decoded?.aspectName ?? null,
        status: outcome.status,
        version: !rejected && outcome.version !== undefined ? outcome.version : null,
        errorCode: rejected ? outcome.errorCode : null,
        error: rejected ? outcome.error : null,
        ...changeLogs,
        timestampMillis: this.options.now(),
        deletedRows: !rejected && outcome.deleted?.rows !== undefined ? outcome.deleted.rows : null,
        deletedTimeseriesRows: !rejected && outcome.deleted ? outcome.deleted.timeseriesRows : null,
      }),
    };
  }

  /**
   * One line per refused proposal: what it was for (as far as it decoded), who sent it, why it was refused, and where
   * it is in the log (what identifies a proposal without a request id, from a direct producer).
   */
  private logRefusal({ candidate, outcome }: Refusal): void {
    const { record, decoded } = candidate;
    this.options.logger.warn(
      {
        urn: decoded?.entityUrn ?? record.key,
        aspect: decoded?.aspectName ?? undefined,
        changeType: decoded?.changeType,
        requestId: candidate.requestId,
        traceId: record.headers[RecordHeader.traceId],
        actor: candidate.actor,
        errorCode: outcome.errorCode,
        reason: outcome.error,
        topic: record.topic,
        partition: record.partition,
        offset: record.offset,
      },
      'proposal refused',
    );
  }

  /** A REJECTED outcome (for proposals with a request id) and a failed-proposal record with the reason. */
  private rejection(
    candidate: Candidate,
    outcome: Extract<ProposalOutcome, { status: 'REJECTED' }>,
    headers: Record<string, string>,
  ): OutboxRecord[] {
    const failed: OutboxRecord = {
      topic: this.options.topics.failedMetadataChangeProposal,
      key: candidate.record.key,
      headers,
      value: this.options.serde.failedProposal.encode({
        auditHeader: null,
        metadataChangeProposal: candidate.decoded ?? undecodedPlaceholder(candidate.record),
        error: outcome.error,
      }),
    };
    return candidate.requestId ? [failed, this.outcomeRecord(candidate, outcome, headers)] : [failed];
  }
}

/** What a decision changes, as its write trace reads it; a refused proposal changes nothing. */
type Effects = Pick<Decision, 'mutations' | 'changeLogs'>;
const NO_EFFECTS: Effects = { mutations: [], changeLogs: [] };

/** The latest values a batch reads, updated in memory as its decisions are made so later proposals see earlier ones. */
class BatchState implements KnownAspects {
  private readonly latest = new Map<string, StoredAspect | undefined>();
  /** The aspects known of each entity: deleting one touches its own keys, not every key of the batch. */
  private readonly aspectsOf = new Map<string, Set<string>>();
  /** Entities a decision of the batch deleted: each of their aspects is known (absent) until written again. */
  private readonly emptied = new Set<string>();

  constructor(loaded: readonly StoredAspect[]) {
    for (const row of loaded) this.set(row.urn, row.aspect, row);
  }

  /** Keys loaded by {@link stateKeys} or {@link load}; anything not found is absent. */
  get(urn: string, aspect: string): StoredAspect | undefined {
    return this.latest.get(keyOf(urn, aspect));
  }

  knows(urn: string, aspect: string): boolean {
    return this.emptied.has(urn) || this.latest.has(keyOf(urn, aspect));
  }

  load(keys: readonly AspectKey[], rows: readonly StoredAspect[]): void {
    const found = new Map(rows.map((row) => [keyOf(row.urn, row.aspect), row]));
    for (const { urn, aspect } of keys) {
      if (!this.knows(urn, aspect)) this.set(urn, aspect, found.get(keyOf(urn, aspect)));
    }
  }

  entities(prefix: string): string[] {
    return [...this.aspectsOf.keys()].filter((urn) => urn.startsWith(prefix));
  }

  apply(mutations: readonly AspectMutation[]): void {
    for (const mutation of mutations) {
      switch (mutation.kind) {
        case 'put':
          this.set(mutation.urn, mutation.aspect, { urn: mutation.urn, aspect: mutation.aspect, ...mutation.row });
          break;
        case 'deleteAspect':
          this.set(mutation.urn, mutation.aspect, undefined);
          break;
        case 'deleteEntity':
          for (const aspect of this.aspectsOf.get(mutation.urn) ?? []) this.set(mutation.urn, aspect, undefined);
          this.emptied.add(mutation.urn);
          break;
        case 'putTimeseries':
        case 'deleteTimeseries':
        case 'setMark':
          break;
      }
    }
  }

  private set(urn: string, aspect: string, row: StoredAspect | undefined): void {
    this.latest.set(keyOf(urn, aspect), row);
    let aspects = this.aspectsOf.get(urn);
    if (aspects === undefined) this.aspectsOf.set(urn, (aspects = new Set()));
    aspects.add(aspect);
  }
}

/** Adds `strata-await-indexing` to the last record of each topic (records are new objects, built for this batch). */
function markLastPerTopic(records: OutboxRecord[]): void {
  const last = new Map<string, number>();
  records.forEach((record, index) => last.set(record.topic, index));
  for (const index of last.values()) {
    const record = records[index];
    if (record) records[index] = { ...record, headers: { ...record.headers, [RecordHeader.awaitIndexing]: 'true' } };
  }
}

function keyOf(urn: string, aspect: string): string {
  return `${urn}\u0000${aspect}`;
}

/**
 * Every (urn, aspect) a decision about these proposals may read: the aspect, the key, and the default aspects; for a
 * delete of the entity, every versioned aspect (to count the versions it removes).
 */
function stateKeys(candidates: readonly Candidate[]): AspectKey[] {
  const keys = new Map<string, AspectKey>();
  for (const { proposal } of candidates) {
    if (!proposal) continue;
    const urn = proposal.urn.toString();
    const deletesEntity = proposal.changeType === 'DELETE' && proposal.aspect.isKey;
    const aspects = deletesEntity
      ? proposal.entity.aspects.filter((aspect) => aspect.kind === 'versioned').map((aspect) => aspect.name)
      : [proposal.aspect.name, proposal.entity.keyAspect.name, ...defaultAspectNames];
    for (const aspect of aspects) keys.set(keyOf(urn, aspect), { urn, aspect });
  }
  return [...keys.values()];
}

/** Whether the proposal deletes timeseries values: a DELETE of the entity, or of a timeseries aspect. */
function deletesTimeseries(proposal: ValidatedProposal | undefined): boolean {
  return proposal?.changeType === 'DELETE' && (proposal.aspect.isKey || proposal.aspect.kind === 'timeseries');
}

/** The proposal in the JSON shape `validateProposal` reads (as clients send it over HTTP). */
function toProposalInput(record: MetadataChangeProposal): Record<string, unknown> {
  return {
    entityType: record.entityType,
    entityUrn: record.entityUrn ?? undefined,
    changeType: record.changeType,
    aspectName: record.aspectName ?? undefined,
    aspect: record.aspect
      ? { value: record.aspect.value.toString('utf8'), contentType: record.aspect.contentType }
      : undefined,
    systemMetadata: record.systemMetadata ? withoutNulls(record.systemMetadata) : undefined,
    headers: record.headers ?? undefined,
  };
}

function withoutNulls(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null && field !== undefined));
}

function recordHeaders(record: LogRecord): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of PROPAGATED_HEADERS) {
    const value = record.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

/** What the failed-proposal record carries for bytes that never decoded: the raw value, and the record's key. */
function undecodedPlaceholder(record: LogRecord): MetadataChangeProposal {
  return {
    auditHeader: null,
    entityType: 'unknown',
    entityUrn: record.key,
    entityKeyAspect: null,
    changeType: 'UPSERT',
    aspectName: null,
    aspect: { value: record.value, contentType: 'application/octet-stream' },
    systemMetadata: null,
    headers: null,
  };
}
