/**
 * Write traces: what became of each (urn, aspect) a proposal carrying a trace id touched, kept by the writer so that
 * DataHub's trace API (`POST /openapi/v1/trace/write/{traceId}`) can answer, per trace id, whether a write was applied
 * (and whether its value is still the latest), refused (and why), or not yet seen. Recorded in the same commit as the
 * proposal's effects (`StoreCommit.writeTraces`), so a trace never says more or less than the store holds.
 */

/** One partition's end of a log topic: the offset the next record appended there gets (decimal string). */
export interface LogEnd {
  readonly topic: string;
  readonly partition: number;
  readonly end: string;
}

/** What a proposal of a trace did to one (urn, aspect), as the commit that decided it records it. */
export interface NewWriteTrace {
  readonly traceId: string;
  readonly urn: string;
  readonly aspect: string;
  /** The proposal that decided it: a later proposal of the same trace touching the same aspect replaces the record. */
  readonly proposalId: string;
  /** `APPLIED`: written (a new version, a delete, a timeseries value); `UNCHANGED`: the same value; `REJECTED`: refused. */
  readonly status: 'APPLIED' | 'UNCHANGED' | 'REJECTED';
  /**
   * The ordinal of the version written (`APPLIED`) or found (`UNCHANGED`); null for a delete, a timeseries value or a
   * refusal.
   */
  readonly version: number | null;
  /** With `version`, for a version written: its `createdOn`, which tells it from a later version of the same ordinal. */
  readonly createdOn: number | null;
  /** For a refusal: its error code (`validation`, `conflict`…) and its reason. */
  readonly errorCode: string | null;
  readonly error: string | null;
  /** Whether the write produced a versioned change log for this aspect: what the search index has to apply. */
  readonly changeLogged: boolean;
  /** When it was decided, epoch milliseconds. */
  readonly recordedAt: number;
}

/** A write trace as the store holds it. */
export interface WriteTrace extends NewWriteTrace {
  /**
   * Once the outbox relay published the change logs of the commit that recorded the trace: the end of every partition
   * of their topic measured right after the log accepted them, an upper bound on their positions (see
   * `AspectStore.recordPublication`); null until then.
   */
  readonly publishedBefore: readonly LogEnd[] | null;
}

/*
 * How a trace learns its publication without a write per trace: the commit that records a trace also stores the id of
 * the last outbox record it appended (its "outbox position"). The relay publishes the outbox in id order and then
 * records one publication per round — "every record up to id N was on the log before it ended at E". A trace's
 * `publishedBefore` is the ends of the first publication whose N reaches its position. One small write per relay round
 * instead of an update per proposal (which cost the sync ingest path a tenth of its throughput).
 */

/** The identity of a write trace: a later record for the same one replaces it. */
export function writeTraceKey(trace: Pick<NewWriteTrace, 'traceId' | 'urn' | 'aspect'>): string {
  return JSON.stringify([trace.traceId, trace.urn, trace.aspect]);
}

/** The last record for each identity, in the order first seen: what a commit of these records leaves. */
export function lastWriteTraces(traces: readonly NewWriteTrace[]): NewWriteTrace[] {
  const last = new Map<string, NewWriteTrace>();
  for (const trace of traces) last.set(writeTraceKey(trace), trace);
  return [...last.values()];
}

/** Checks the ends a publication records: a programming error otherwise (they are stored as given). */
export function checkedLogEnds(ends: readonly LogEnd[]): LogEnd[] {
  return ends.map(({ topic, partition, end }) => {
    if (topic === '' || !Number.isInteger(partition) || partition < 0 || !/^\d+$/.test(end)) {
      throw new Error(`Not a log end: ${JSON.stringify({ topic, partition, end })}`);
    }
    return { topic, partition, end };
  });
}
