import {
  applyAspectPatch,
  CREATION_REQUIRES_HEADER,
  timeRangeOf,
  timeseriesPointId,
  timeseriesRunOf,
  TIME_RANGE_HEADERS,
  TIMESERIES_RUN_HEADER,
  ValidationError,
  type ErrorCode,
  type JsonObject,
  type ValidatedProposal,
} from '@strata/model';
import type { AspectMutation, StoredAspect } from '@strata/store';
import { defaultAspects } from './default-aspects';
import { jsonEqual } from './json-equal';

/** DataHub's run id for writes that name none (`Constants.DEFAULT_RUN_ID`). */
export const defaultRunId = 'no-run-id-provided';

/** What the writer knows when it decides: the time and who asked. Injected, never read from the environment. */
export interface DecisionContext {
  readonly now: number;
  readonly actor: string;
}

/** The latest stored value of an aspect of the proposal's entity, or undefined when absent. */
export type CurrentAspect = (aspect: string) => StoredAspect | undefined;

/** A change log to emit, in domain terms; the consumer encodes it as a MetadataChangeLog record. */
export interface ChangeLogDraft {
  readonly timeseries: boolean;
  readonly entityType: string;
  readonly entityUrn: string;
  /** RESTATE: a restore replaying the stored value, which changes nothing (indices rebuild from it). */
  readonly changeType: 'UPSERT' | 'DELETE' | 'RESTATE';
  readonly aspectName: string;
  readonly aspect: JsonObject | undefined;
  readonly systemMetadata: JsonObject | undefined;
  readonly previousAspectValue: JsonObject | undefined;
  readonly previousSystemMetadata: JsonObject | undefined;
  readonly created: { readonly time: number; readonly actor: string };
  readonly headers: Readonly<Record<string, string>>;
}

export type ProposalOutcome =
  | {
      readonly status: 'APPLIED' | 'UNCHANGED';
      readonly version: number | undefined;
      /** What a DELETE of an entity or of a timeseries aspect removed. */
      readonly deleted?: DeletionCounts;
    }
  | { readonly status: 'REJECTED'; readonly errorCode: ErrorCode; readonly error: string };

/** How much a delete removes: stored aspect versions (entity deletes) and timeseries values. */
export interface DeletionCounts {
  readonly rows?: number;
  readonly timeseriesRows: number;
}

/**
 * What the store holds beyond the latest values, for the decisions that need it: how many timeseries values a DELETE
 * removes (of the entity, or of the aspect in the proposal's time range). Read by the caller, so `decide` stays pure.
 */
export interface StoredCounts {
  readonly timeseriesRows: number;
}

export interface Decision {
  /** Applied atomically, in order. */
  readonly mutations: readonly AspectMutation[];
  readonly changeLogs: readonly ChangeLogDraft[];
  readonly outcome: ProposalOutcome;
}

/**
 * Decides what a validated proposal changes, given the current state of its entity. Pure: no I/O, no clock.
 *
 * - A new entity (no key aspect stored) gets its key aspect and DataHub's default aspects first, each with a change log.
 * - UPSERT of a value equal to the latest creates no version and no change log; only the latest's system metadata moves
 *   (`lastObserved`, `lastRunId`). A different value becomes version N + 1 (see `AspectStore` for the layout).
 * - CREATE fails when the aspect exists; CREATE_ENTITY fails when the entity exists — unless the proposal says
 *   `If-None-Match: *`, when it changes nothing and succeeds, as in DataHub (whose clients use it as "create if absent").
 * - `If-Version-Match: <v>` holds when the aspect's version is v (`-1`: absent); otherwise nothing is written and the
 *   proposal is refused as a failed precondition.
 * - `X-Strata-Creation-Requires: <privilege>` (set by the gateway on the writes of a caller who may not create the
 *   entity: a user) refuses the proposal as forbidden when its entity does not exist; it may change one that does.
 * - PATCH applies its operations to the latest value (or the aspect's empty template), validates the result like any
 *   value, and continues as an UPSERT of it.
 * - DELETE of an aspect removes it (every version) and emits a DELETE change log carrying the previous value; DELETE of
 *   the key aspect removes the entity; DELETE of a timeseries aspect removes its values in the time range the headers
 *   give (`startTimeMillis`, `endTimeMillis`), only those of one ingestion run when they name it (`runId`: what the
 *   rollback of a run writes). Deleting what is absent changes nothing. The outcome of an entity or
 *   timeseries delete says how much went.
 * - Timeseries aspects are not versioned: each value is kept under its `timestampMillis` and emitted on the timeseries
 *   change log.
 */
export function decide(
  proposal: ValidatedProposal,
  current: CurrentAspect,
  context: DecisionContext,
  counts: StoredCounts = { timeseriesRows: 0 },
): Decision {
  const builder = new DecisionBuilder(proposal, context);
  const { aspect, changeType } = proposal;
  const entityExists = current(proposal.entity.keyAspect.name) !== undefined;

  const existing = aspect.kind === 'timeseries' ? undefined : current(aspect.name);
  const precondition = failedPrecondition(proposal, existing);
  if (precondition !== undefined) return builder.reject('precondition-failed', precondition);
  const creationRequires = headerOf(proposal, CREATION_REQUIRES_HEADER)?.trim();
  if (!entityExists && changeType !== 'DELETE' && creationRequires !== undefined && creationRequires !== '') {
    return builder.reject(
      'forbidden',
      `${proposal.urn.toString()} does not exist, and creating it needs ${creationRequires}, which the caller does not hold`,
    );
  }
  if (changeType === 'DELETE') return decideDelete(builder, proposal, current, entityExists, counts);
  const createIfAbsent = headerOf(proposal, 'If-None-Match')?.trim() === '*';
  if (changeType === 'CREATE_ENTITY' && entityExists) {
    if (createIfAbsent) return builder.unchanged(existing?.version);
    return builder.reject(
      'validation',
      `Cannot perform CREATE_ENTITY since the entity already exists: ${proposal.urn.toString()}`,
    );
  }
  if (changeType === 'CREATE' && existing !== undefined) {
    if (createIfAbsent) return builder.unchanged(existing.version);
    return builder.reject(
      'validation',
      `Cannot perform CREATE since the aspect already exists: ${aspect.name} of ${proposal.urn.toString()}`,
    );
  }
  let value = proposal.value;
  if (changeType === 'PATCH') {
    try {
      value = patchedValue(proposal, existing, context);
    } catch (error) {
      if (error instanceof ValidationError) return builder.reject('validation', error.message);
      throw error;
    }
  }
  if (value === undefined) throw new Error(`A ${changeType} proposal was validated without a value`);

  if (!entityExists) {
    builder.createEntity(current);
    if (aspect.isKey) return builder.applied(1);
  }
  if (aspect.kind === 'timeseries') return builder.putTimeseries(value);
  return builder.put(aspect.name, value, existing);
}

/** The value a PATCH proposal leaves: its operations on the latest value, validated. Throws a ValidationError. */
function patchedValue(proposal: ValidatedProposal, existing: StoredAspect | undefined, context: DecisionContext) {
  if (proposal.patch === undefined) throw new Error('A PATCH proposal was validated without its operations');
  const urn = proposal.urn.toString();
  const patched = applyAspectPatch(proposal.aspect, existing?.value, proposal.patch, { now: context.now, urn });
  try {
    return proposal.aspect.validate(patched);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(`Invalid format for aspect: ${proposal.aspect.name}\n Cause: ${error.message}`, {
      cause: error,
    });
  }
}

/**
 * Why the proposal's `If-Version-Match` does not hold, or undefined when it holds or is absent. The version compared
 * is DataHub's: `-1` for an absent aspect (and for CREATE), else the version in the latest value's system metadata.
 */
function failedPrecondition(proposal: ValidatedProposal, existing: StoredAspect | undefined): string | undefined {
  const expected = headerOf(proposal, 'If-Version-Match')?.trim();
  if (expected === undefined) return undefined;
  const creating = proposal.changeType === 'CREATE' || proposal.changeType === 'CREATE_ENTITY';
  const stored = existing?.systemMetadata['version'];
  const actual =
    creating || existing === undefined
      ? '-1'
      : typeof stored === 'string' && /^-?\d+$/.test(stored)
        ? String(Number(stored))
        : String(Math.max(1, existing.version));
  return expected === actual ? undefined : `Expected version ${expected}, actual version ${actual}`;
}

/** A proposal header, by name without regard to case (as DataHub reads them). */
function headerOf(proposal: ValidatedProposal, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(proposal.headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

function decideDelete(
  builder: DecisionBuilder,
  proposal: ValidatedProposal,
  current: CurrentAspect,
  entityExists: boolean,
  counts: StoredCounts,
): Decision {
  if (proposal.aspect.kind === 'timeseries') {
    const deleted = { timeseriesRows: counts.timeseriesRows };
    if (counts.timeseriesRows === 0) return builder.unchanged(undefined, deleted);
    return builder.deleteTimeseries(timeRangeOf(proposal.headers), timeseriesRunOf(proposal.headers), deleted);
  }
  if (proposal.aspect.isKey) {
    // Every version of every aspect goes: an aspect's versions are its ordinals 1..N, so they number N.
    const rows = proposal.entity.aspects
      .filter((aspect) => aspect.kind === 'versioned')
      .reduce((sum, aspect) => sum + (current(aspect.name)?.version ?? 0), 0);
    const deleted = { rows, timeseriesRows: counts.timeseriesRows };
    return entityExists ? builder.deleteEntity(current, deleted) : builder.unchanged(undefined, deleted);
  }
  const existing = current(proposal.aspect.name);
  return existing ? builder.deleteAspect(existing) : builder.unchanged(undefined);
}

/** Accumulates the mutations and change logs of one decision. */
class DecisionBuilder {
  private readonly mutations: AspectMutation[] = [];
  private readonly changeLogs: ChangeLogDraft[] = [];
  private readonly urn: string;
  private readonly systemMetadata: JsonObject;

  constructor(
    private readonly proposal: ValidatedProposal,
    private readonly context: DecisionContext,
  ) {
    this.urn = proposal.urn.toString();
    this.systemMetadata = stampSystemMetadata(proposal.systemMetadata, context.now);
  }

  /**
   * Writes the key aspect of a new entity (first, so its change log leads) and the default aspects the proposal does not
   * itself supply. A key-aspect proposal is thereby applied: its value was validated to equal the key derived here.
   */
  createEntity(current: CurrentAspect): void {
    const { entity, aspect } = this.proposal;
    const key = entity.keyFromUrn(this.proposal.urn);
    this.write(entity.keyAspect.name, key, undefined);
    for (const missing of defaultAspects(entity, key)) {
      if (missing.aspect !== aspect.name && current(missing.aspect) === undefined) {
        this.write(missing.aspect, missing.value, undefined);
      }
    }
  }

  put(aspectName: string, value: JsonObject, existing: StoredAspect | undefined): Decision {
    if (existing && jsonEqual(existing.value, value)) {
      const observed = {
        ...existing.systemMetadata,
        lastObserved: this.systemMetadata['lastObserved'],
        lastRunId: this.systemMetadata['runId'],
      };
      if (!jsonEqual(observed, existing.systemMetadata)) {
        this.mutations.push({
          kind: 'put',
          urn: this.urn,
          aspect: aspectName,
          expectedVersion: existing.version,
          row: { ...existing, systemMetadata: observed },
        });
      }
      return this.finish({ status: 'UNCHANGED', version: existing.version });
    }
    const version = this.write(aspectName, value, existing);
    return this.finish({ status: 'APPLIED', version });
  }

  putTimeseries(value: JsonObject): Decision {
    const timestampMillis = value['timestampMillis'];
    if (typeof timestampMillis !== 'number') {
      return this.reject('validation', 'Input timeseries aspect does not contain a timestampMillis field');
    }
    const aspectName = this.proposal.aspect.name;
    this.mutations.push({
      kind: 'putTimeseries',
      value: {
        urn: this.urn,
        aspect: aspectName,
        id: timeseriesPointId(this.urn, value),
        timestampMillis,
        value,
        systemMetadata: this.systemMetadata,
        createdOn: this.context.now,
        createdBy: this.context.actor,
      },
    });
    this.log(aspectName, 'UPSERT', value, this.systemMetadata, undefined, true);
    return this.finish({ status: 'APPLIED', version: undefined });
  }

  deleteAspect(existing: StoredAspect): Decision {
    this.mutations.push({
      kind: 'deleteAspect',
      urn: this.urn,
      aspect: existing.aspect,
      expectedVersion: existing.version,
    });
    this.log(existing.aspect, 'DELETE', undefined, this.systemMetadata, existing, false);
    return this.finish({ status: 'APPLIED', version: undefined });
  }

  deleteEntity(current: CurrentAspect, deleted: DeletionCounts): Decision {
    const keyName = this.proposal.entity.keyAspect.name;
    this.mutations.push({ kind: 'deleteEntity', urn: this.urn });
    this.log(keyName, 'DELETE', undefined, this.systemMetadata, current(keyName), false);
    if (deleted.timeseriesRows > 0) {
      // The timeseries indices learn from the timeseries change log alone: every point of the entity goes, whatever
      // range or run the proposal's headers name.
      const {
        [TIME_RANGE_HEADERS.from]: _from,
        [TIME_RANGE_HEADERS.until]: _until,
        [TIMESERIES_RUN_HEADER]: _run,
        ...headers
      } = this.proposal.headers;
      for (const aspect of this.proposal.entity.aspects.filter((spec) => spec.kind === 'timeseries')) {
        this.log(aspect.name, 'DELETE', undefined, this.systemMetadata, undefined, true, headers);
      }
    }
    return this.finish({ status: 'APPLIED', version: undefined, deleted });
  }

  /**
   * Removes a timeseries aspect's values in the range (only those `runId` wrote, when given), and logs the removal on
   * the timeseries change log with the range and the run in its headers (as the proposal gave them), for the
   * timeseries indices to remove the same points.
   */
  deleteTimeseries(
    range: { fromMillis?: number; untilMillis?: number },
    runId: string | undefined,
    deleted: DeletionCounts,
  ): Decision {
    const aspectName = this.proposal.aspect.name;
    this.mutations.push({
      kind: 'deleteTimeseries',
      urn: this.urn,
      aspect: aspectName,
      range,
      ...(runId === undefined ? {} : { runId }),
    });
    this.log(aspectName, 'DELETE', undefined, this.systemMetadata, undefined, true);
    return this.finish({ status: 'APPLIED', version: undefined, deleted });
  }

  applied(version: number | undefined): Decision {
    return this.finish({ status: 'APPLIED', version });
  }

  unchanged(version: number | undefined, deleted?: DeletionCounts): Decision {
    return this.finish({ status: 'UNCHANGED', version, ...(deleted === undefined ? {} : { deleted }) });
  }

  reject(errorCode: ErrorCode, error: string): Decision {
    return { mutations: [], changeLogs: [], outcome: { status: 'REJECTED', errorCode, error } };
  }

  /** Writes a new version of an aspect and logs it; returns the new ordinal. */
  private write(aspectName: string, value: JsonObject, existing: StoredAspect | undefined): number {
    const expectedVersion = existing?.version ?? 0;
    const version = expectedVersion + 1;
    const systemMetadata = { ...this.systemMetadata, version: String(version) };
    this.mutations.push({
      kind: 'put',
      urn: this.urn,
      aspect: aspectName,
      expectedVersion,
      row: { version, value, systemMetadata, createdOn: this.context.now, createdBy: this.context.actor },
    });
    this.log(aspectName, 'UPSERT', value, systemMetadata, existing, false);
    return version;
  }

  private log(
    aspectName: string,
    changeType: ChangeLogDraft['changeType'],
    aspect: JsonObject | undefined,
    systemMetadata: JsonObject,
    previous: StoredAspect | undefined,
    timeseries: boolean,
    headers: Readonly<Record<string, string>> = this.proposal.headers,
  ): void {
    this.changeLogs.push({
      timeseries,
      entityType: this.proposal.entity.name,
      entityUrn: this.urn,
      changeType,
      aspectName,
      aspect,
      systemMetadata,
      previousAspectValue: previous?.value,
      previousSystemMetadata: previous?.systemMetadata,
      created: { time: this.context.now, actor: this.context.actor },
      headers,
    });
  }

  private finish(outcome: ProposalOutcome): Decision {
    return { mutations: this.mutations, changeLogs: this.changeLogs, outcome };
  }
}

/** System metadata as DataHub stamps it: `lastObserved` defaults to now, `runId` to the default run id. */
export function stampSystemMetadata(given: JsonObject | undefined, now: number): JsonObject {
  const runId = typeof given?.['runId'] === 'string' ? given['runId'] : defaultRunId;
  const lastObserved =
    typeof given?.['lastObserved'] === 'number' && given['lastObserved'] > 0 ? given['lastObserved'] : now;
  return { ...given, lastObserved, runId, lastRunId: runId };
}
