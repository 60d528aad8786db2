import type { LogEnd, NewWriteTrace, WriteTrace } from './write-traces';

/**
 * The primary store: versioned aspects of entities, the writer's outbox, and the ids of proposals already applied.
 *
 * Version rule (DataHub's, `AspectDao`): the latest value of an aspect is kept under row version 0, and carries its
 * real ordinal N (1 for the first write). When a different value is written, the latest row is first archived under its
 * own ordinal N and the new value becomes the latest with ordinal N + 1, so 1 is the oldest and higher numbers are newer.
 * In this port, {@link StoredAspect.version} is always the ordinal; how an adapter lays out "row 0" is its own affair.
 *
 * Invariants every adapter guarantees (and `describeAspectStoreContract` checks):
 * - **Atomic commits.** {@link AspectStore.commit} applies all its mutations, appends all its outbox records and records
 *   all its proposal ids, or does nothing at all.
 * - **Optimistic concurrency.** Every mutation of an aspect names the ordinal it expects as current (0 for "absent");
 *   if any expectation does not hold when the commit runs, the whole commit fails with `ConflictError` and the caller
 *   re-reads and decides again. Two writers racing on one aspect therefore never lose an update or reuse an ordinal.
 * - **Outbox order.** Outbox records are returned by {@link AspectStore.pendingOutbox} in commit order, and stay
 *   pending until {@link AspectStore.markPublished} names them.
 * - **Idempotency ledger.** Proposal ids recorded by a commit are reported by {@link AspectStore.findApplied} from
 *   then on, so a redelivered proposal is recognised and not applied twice.
 */
export interface AspectStore {
  /** The latest value of each requested (urn, aspect) that exists, in no particular order. */
  getLatest(keys: readonly AspectKey[]): Promise<StoredAspect[]>;

  /** The latest value of every aspect of `urn` (or only of `aspects`, when given), ordered by aspect name. */
  getEntity(urn: string, aspects?: readonly string[]): Promise<StoredAspect[]>;

  /**
   * One version of an aspect: 0 means the latest; N ≥ 1 the version with that ordinal (the latest included).
   * Undefined when the aspect or that version does not exist.
   */
  getVersion(urn: string, aspect: string, version: number): Promise<StoredAspect | undefined>;

  /** Which of these proposal ids a commit has already recorded. */
  findApplied(proposalIds: readonly string[]): Promise<Set<string>>;

  /** Applies a commit atomically. Rejects with `ConflictError` when an expected ordinal does not hold. */
  commit(commit: StoreCommit): Promise<void>;

  /** Outbox records not yet marked published, oldest first, at most `limit`. */
  pendingOutbox(limit: number): Promise<PendingOutboxRecord[]>;

  /** Marks outbox records published (idempotent: unknown or already-marked ids are ignored). */
  markPublished(ids: readonly string[]): Promise<void>;

  /**
   * The write traces of `traceId` for these (urn, aspect), in no particular order; those never recorded are absent.
   * Every trace a resolved commit recorded is found, as that commit left it (a later commit's record of the same
   * trace, urn and aspect replaces it).
   */
  findWriteTraces(traceId: string, keys: readonly AspectKey[]): Promise<WriteTrace[]>;

  /**
   * Records that every outbox record up to and including `throughOutboxId` (an id {@link pendingOutbox} handed out)
   * was on the log before it ended at `ends`, measured right after the log accepted them. Every write trace with a
   * change log (`changeLogged`) recorded by a commit whose outbox records that covers then reports `ends` as its
   * `publishedBefore`, unless an earlier
   * publication already covered it: the first bound is the tighter one. Traces of a commit that appended no outbox
   * record are never published. An id the store never handed out is ignored.
   */
  recordPublication(throughOutboxId: string, ends: readonly LogEnd[]): Promise<void>;

  /**
   * The latest values last written by an ingestion run (their system metadata's `runId`), by URN then aspect, at most
   * `limit` of them: what rolling the run back reverts.
   */
  findLatestByRunId(runId: string, limit: number): Promise<StoredAspect[]>;

  /**
   * The latest values last written under one version of a model registry — their system metadata's `registryName`
   * and `registryVersion`, strings equal to these — by URN then aspect, at most `limit` of them: what deleting
   * everything a registry wrote reverts (DataHub's `deleteAll`). Only values whose writer named a registry in their
   * system metadata can match.
   */
  findLatestByRegistry(registryName: string, registryVersion: string, limit: number): Promise<StoredAspect[]>;

  /**
   * The latest values of one of the aspects the store was told to list (its `listedAspects` option) across entities,
   * by URN, after `afterUrn` when given, at most `limit` of them: a page of every policy, say, read straight from the
   * store. Throws for another aspect.
   */
  listLatest(aspect: string, options: { readonly afterUrn?: string; readonly limit: number }): Promise<StoredAspect[]>;

  /** Whether {@link listLatest} lists `aspect`. */
  listsAspect(aspect: string): boolean;

  /**
   * A page of entities, whole: the latest value of every aspect of each entity whose URN starts with `urnPrefix`
   * (`urn:li:dataset:`, say), after `afterUrn` when given, at most `limit` entities, in URN order (aspects by name).
   * What a scan of every entity of a type reads (the re-evaluation of a metadata test, say).
   */
  scanEntities(request: {
    readonly urnPrefix: string;
    readonly afterUrn?: string;
    readonly limit: number;
  }): Promise<ScannedEntity[]>;

  /**
   * The ingestion runs that last wrote some latest value: per run id (their system metadata's `runId`, the unnamed
   * run's id left out), how many latest values it wrote last and the newest `lastObserved` among them (its write time
   * when absent), newest run first (ties by run id), the page `[start, start + count)`. Unless `includeSoft`, values
   * of entities whose `status` says removed are not counted, and a run left with none is not listed.
   */
  listRuns(request: ListRunsRequest): Promise<RunSummary[]>;

  /**
   * The URNs of the entities that have this key aspect (every entity of a type has its key), whose URN starts with
   * `urnPrefix`, in URN order: the page `[start, start + count)`, and how many there are in all. Soft-deleted ones
   * included: the store does not read their status.
   */
  listUrns(request: ListUrnsRequest): Promise<{ readonly urns: string[]; readonly total: number }>;

  /** How many latest values of `aspect` there are, of entities whose URN starts with `urnPrefix` and `urnMatches` accepts. */
  countLatest(request: CountLatestRequest): Promise<number>;

  /**
   * How many timeseries values of these aspects of one entity lie in the range, of those `runId` wrote when given (their
   * system metadata's `runId`).
   */
  countTimeseries(urn: string, aspects: readonly string[], range?: TimeRange, runId?: string): Promise<number>;

  /**
   * The (urn, timeseries aspect) pairs holding values an ingestion run wrote (their system metadata's `runId`), each
   * with how many, by URN then aspect, at most `limit` pairs: the timeseries values rolling the run back removes.
   */
  findTimeseriesByRunId(runId: string, limit: number): Promise<TimeseriesOfRun[]>;

  /**
   * The current value of each named mark that was ever set (see {@link SetMark}), read after every commit that
   * resolved before this call.
   */
  getMarks(names: readonly string[]): Promise<Map<string, string>>;

  /** Durable values of a timeseries aspect for one entity, newest first (the source for rebuilding its index). */
  getTimeseries(urn: string, aspect: string, options?: { limit?: number }): Promise<StoredTimeseriesValue[]>;

  /**
   * One page of a restore: reads the next rows of {@link RestateRequest}'s sequence and appends the outbox records
   * `toRecords` makes of them, in one transaction. The records therefore take their place in the outbox among the
   * commits' own: a change committed before the page is restated with its new value, one committed after it follows
   * the restated record, and no index is left holding an older value than the store.
   */
  restate(
    request: RestateRequest,
    toRecords: (rows: readonly RestatedRow[]) => readonly OutboxRecord[],
  ): Promise<RestatePage>;

  /**
   * Removes up to `limit` durable timeseries values of one aspect, of the entities whose URN starts with `urnPrefix`,
   * with `timestampMillis <= endTimeMillis`; resolves with how many went (fewer than `limit`: none are left).
   */
  truncateTimeseries(request: TruncateTimeseries): Promise<number>;

  /** How many rows a restore of everything replays: latest values of versioned aspects, and timeseries values. */
  countRows(): Promise<{ readonly latest: number; readonly timeseries: number }>;

  close(): Promise<void>;
}

/**
 * Checks the aspects a store is told to list ({@link AspectStore.listLatest}): names only (an adapter may write them
 * into its index definitions).
 */
export function listedAspectsOf(aspects: readonly string[] | undefined): readonly string[] {
  for (const aspect of aspects ?? []) {
    if (!/^[A-Za-z][A-Za-z0-9]{0,127}$/.test(aspect))
      throw new Error(`Not an aspect name that can be listed: ${aspect}`);
  }
  return [...new Set(aspects ?? [])];
}

/** Refuses to list an aspect the store was not told to list (a programming error). */
export function assertListed(listed: readonly string[], aspect: string): void {
  if (!listed.includes(aspect)) {
    throw new Error(`The latest values of ${aspect} cannot be listed; listed aspects: ${listed.join(', ') || 'none'}`);
  }
}

/** The run id DataHub gives proposals that name none; {@link AspectStore.listRuns} leaves it out. */
export const UNNAMED_RUN_ID = 'no-run-id-provided';

export interface ListRunsRequest {
  readonly start: number;
  readonly count: number;
  readonly includeSoft: boolean;
}

/** DataHub's `IngestionRunSummary`: a run, how many latest values it wrote last, and when it last wrote. */
export interface RunSummary {
  readonly runId: string;
  readonly rows: number;
  readonly timestamp: number;
}

export interface ListUrnsRequest {
  readonly urnPrefix: string;
  readonly keyAspect: string;
  readonly start: number;
  readonly count: number;
}

export interface CountLatestRequest {
  readonly aspect: string;
  readonly urnPrefix?: string | undefined;
  readonly urnMatches?: ((urn: string) => boolean) | undefined;
}

/** JSON object as stored: aspect values and system metadata. */
export type JsonObject = { [key: string]: unknown };

/** An entity as a scan reads it: the latest value of each of its aspects, by aspect name. */
export interface ScannedEntity {
  readonly urn: string;
  readonly aspects: readonly StoredAspect[];
}

/**
 * Groups latest rows, offered in (urn, aspect) order, into at most `limit` entities of the URN prefix: the part of
 * {@link AspectStore.scanEntities} both adapters share. `offer` says false once the adapter may stop reading (the next
 * entity would be one too many, or the row left the prefix).
 */
export class EntityGrouping {
  readonly entities: { urn: string; aspects: StoredAspect[] }[] = [];

  constructor(
    private readonly urnPrefix: string,
    private readonly limit: number,
  ) {}

  offer(row: StoredAspect): boolean {
    if (!row.urn.startsWith(this.urnPrefix)) return false;
    const current = this.entities[this.entities.length - 1];
    if (current?.urn === row.urn) {
      current.aspects.push(row);
      return true;
    }
    if (this.entities.length >= this.limit) return false;
    this.entities.push({ urn: row.urn, aspects: [row] });
    return true;
  }
}

export interface AspectKey {
  readonly urn: string;
  readonly aspect: string;
}

export interface StoredAspect {
  readonly urn: string;
  readonly aspect: string;
  /** The ordinal of this version (≥ 1). */
  readonly version: number;
  readonly value: JsonObject;
  readonly systemMetadata: JsonObject;
  /** When this version was written, epoch milliseconds. */
  readonly createdOn: number;
  /** Actor URN that wrote this version. */
  readonly createdBy: string;
}

export interface StoredTimeseriesValue {
  readonly urn: string;
  readonly aspect: string;
  /**
   * The point's identity within (urn, aspect): its timestamp, event granularity, message id and partition
   * (`timeseriesPointId`). A value with the same id replaces the stored one.
   */
  readonly id: string;
  readonly timestampMillis: number;
  readonly value: JsonObject;
  readonly systemMetadata: JsonObject;
  readonly createdOn: number;
  readonly createdBy: string;
}

/** A new latest value for an aspect. */
export interface PutAspect {
  readonly kind: 'put';
  readonly urn: string;
  readonly aspect: string;
  /** Ordinal of the current latest value, 0 when the aspect does not exist. */
  readonly expectedVersion: number;
  /**
   * The new latest value. `row.version === expectedVersion + 1` writes a new version (archiving the current latest under
   * `expectedVersion` when there is one); `row.version === expectedVersion` rewrites the latest in place (used when only
   * system metadata moved).
   */
  readonly row: Omit<StoredAspect, 'urn' | 'aspect'>;
}

/** Removes an aspect, every version of it. */
export interface DeleteAspect {
  readonly kind: 'deleteAspect';
  readonly urn: string;
  readonly aspect: string;
  readonly expectedVersion: number;
}

/** Removes an entity: every version of every aspect, and its timeseries values. */
export interface DeleteEntity {
  readonly kind: 'deleteEntity';
  readonly urn: string;
}

/** An inclusive range of timestamps, epoch milliseconds; an absent bound is open. */
export interface TimeRange {
  readonly fromMillis?: number;
  readonly untilMillis?: number;
}

/**
 * Removes the values of a timeseries aspect of one entity whose timestamp lies in the range — only those an ingestion
 * run wrote (their system metadata's `runId`) when `runId` is given.
 */
export interface DeleteTimeseries {
  readonly kind: 'deleteTimeseries';
  readonly urn: string;
  readonly aspect: string;
  readonly range: TimeRange;
  readonly runId?: string | undefined;
}

/** A timeseries aspect of one entity, and how many of its values one ingestion run wrote. */
export interface TimeseriesOfRun {
  readonly urn: string;
  readonly aspect: string;
  readonly count: number;
}

/** Keeps a timeseries value durably; a value with the same (urn, aspect, id) is replaced. */
export interface PutTimeseries {
  readonly kind: 'putTimeseries';
  readonly value: StoredTimeseriesValue;
}

/**
 * Sets a named mark to a value, in the commit: a cheap token that a reader compares with the one it saw before to
 * learn, with one small read, that something it cached may have changed (the writer marks security changes so that
 * every gateway notices them at its next request). Concurrent commits may overwrite each other's value; either way
 * the mark differs from what was read before both.
 */
export interface SetMark {
  readonly kind: 'setMark';
  readonly name: string;
  readonly value: string;
}

export type AspectMutation = PutAspect | DeleteAspect | DeleteEntity | PutTimeseries | DeleteTimeseries | SetMark;

/**
 * The rows a restore replays, in one sequence: first the latest values of versioned aspects (version 0) ordered by
 * (urn, aspect), then the durable timeseries values ordered by (urn, aspect, id), each narrowed by the request.
 */
export interface RestateRequest {
  /** Only this entity. */
  readonly urn?: string | undefined;
  /** Only these aspects. */
  readonly aspects?: readonly string[] | undefined;
  /** Only entities whose URN starts with this: a narrowing `urnMatches` implies, which lets the adapter seek. */
  readonly urnPrefix?: string | undefined;
  /** Only entities whose URN this accepts. */
  readonly urnMatches?: ((urn: string) => boolean) | undefined;
  /** Only rows written in this range (their `createdOn`), bounds included; an absent bound is open. */
  readonly createdOn?: TimeRange | undefined;
  /** Resume strictly after this row of the sequence. */
  readonly after?: RowCursor | undefined;
  /** Matching rows (after `after`) to pass over before the page: a row number to start from. */
  readonly skip?: number | undefined;
  /** The most rows in the page, at least 1. */
  readonly limit: number;
  /**
   * The most rows the page reads, matching or not, before it ends; unbounded when undefined. A page ended by it is not
   * exhausted and its `last` is the last row read, so the next page resumes after it. It bounds how long one page
   * holds the store (and, with the embedded engine, the event loop) however few rows the narrowing accepts.
   */
  readonly scanLimit?: number | undefined;
}

/** A row's place in the restore sequence: latest values have no point id. */
export interface RowCursor {
  readonly source: 'latest' | 'timeseries';
  readonly urn: string;
  readonly aspect: string;
  /** The point id of a timeseries value; empty for a latest value. */
  readonly id: string;
}

export type RestatedRow =
  | { readonly source: 'latest'; readonly row: StoredAspect }
  | { readonly source: 'timeseries'; readonly row: StoredTimeseriesValue };

export interface RestatePage {
  /** Rows restated. */
  readonly rows: number;
  /** Rows the scan passed over to honour `skip`. */
  readonly skipped: number;
  /**
   * The last row restated or passed over — or, when the page ended at `scanLimit`, the last row read; undefined when
   * there was none.
   */
  readonly last: RowCursor | undefined;
  /** True when the sequence has no more matching rows after this page. */
  readonly exhausted: boolean;
}

export interface TruncateTimeseries {
  readonly urnPrefix: string;
  readonly aspect: string;
  readonly endTimeMillis: number;
  readonly limit: number;
}

/** The cursor of a restated row. */
export function cursorOfRow(row: RestatedRow): RowCursor {
  return row.source === 'latest'
    ? { source: 'latest', urn: row.row.urn, aspect: row.row.aspect, id: '' }
    : { source: 'timeseries', urn: row.row.urn, aspect: row.row.aspect, id: row.row.id };
}

/** A record the writer publishes once the commit holding it is durable (transactional outbox). */
export interface OutboxRecord {
  readonly topic: string;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

export interface PendingOutboxRecord extends OutboxRecord {
  /** Opaque id, increasing in commit order. */
  readonly id: string;
}

export interface StoreCommit {
  readonly mutations: readonly AspectMutation[];
  readonly outbox: readonly OutboxRecord[];
  /** Ids of the proposals this commit applies (see {@link AspectStore.findApplied}). */
  readonly appliedProposalIds: readonly string[];
  /**
   * What the commit's proposals that carry a trace id did, per (urn, aspect): recorded atomically with the rest, each
   * replacing an earlier record of the same trace, urn and aspect (with `publishedBefore` reset to null). Default none.
   */
  readonly writeTraces?: readonly NewWriteTrace[];
}
