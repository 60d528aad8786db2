/**
 * DataHub's answer to "what became of this write?" (`POST /openapi/v1/trace/write/{traceId}`), per (urn, aspect), from
 * what the metadata writer recorded of it and how far the search indexer has come. Pure.
 */

/** DataHub's `TraceWriteStatus`. */
export type TraceWriteStatus =
  'ERROR' | 'PENDING' | 'ACTIVE_STATE' | 'HISTORIC_STATE' | 'NO_OP' | 'UNKNOWN' | 'TRACE_NOT_IMPLEMENTED';

/** DataHub's `TraceException`, as Strata fills it: the reason of a refusal. */
export interface TraceException {
  readonly message: string;
}

/** DataHub's `TraceStorageStatus`: absent fields are left out of the JSON. */
export interface TraceStorageStatus {
  readonly writeStatus: TraceWriteStatus;
  readonly writeMessage?: string;
  readonly writeExceptions?: readonly TraceException[];
}

/** DataHub's `TraceStatus`: a write is a success unless either storage says ERROR. */
export interface TraceStatus {
  readonly success: boolean;
  readonly primaryStorage: TraceStorageStatus;
  readonly searchStorage: TraceStorageStatus;
}

/** One partition's end of a log topic, as a write trace records it. */
export interface LogEnd {
  readonly topic: string;
  readonly partition: number;
  readonly end: string;
}

/** What the metadata writer knows of one (urn, aspect) of the trace (its `POST /internal/write-traces`). */
export type RecordedWrite =
  | { readonly seen: false }
  | {
      readonly seen: true;
      readonly status: 'APPLIED' | 'UNCHANGED' | 'REJECTED';
      readonly error: string | null;
      /** For an applied write: whether what it left is still the latest. */
      readonly current: boolean;
      /** Whether it produced a versioned change log for this aspect (what the search index applies). */
      readonly changeLogged: boolean;
      /** Where the change log's topic ended once it was published: null while it is not. */
      readonly publishedBefore: readonly LogEnd[] | null;
    };

/**
 * What the trace can say of the search index: none in this deployment; the search indexer's position in each
 * partition it consumes (the offset of the next change log it applies, every one before it durable); or its progress
 * could not be read (`reason`).
 */
export type SearchIndexing =
  | { readonly kind: 'absent' }
  | { readonly kind: 'positions'; readonly positions: readonly LogEnd[] }
  | { readonly kind: 'unreadable'; readonly reason: string };

export interface TraceStatusOptions {
  /** Whether the aspect is a timeseries aspect: the search index holds no timeseries values. */
  readonly timeseries: boolean;
  readonly search: SearchIndexing;
  /** DataHub's `detailed`: a refusal's reason also as `writeExceptions`. */
  readonly detailed: boolean;
}

/**
 * The status of one (urn, aspect) of a trace.
 *
 * Primary storage (the metadata writer's store): `PENDING` until the writer applied the proposal (not seen under this
 * trace id: still on the log, or never sent with it); `ERROR` with the reason when it refused it; `NO_OP` when it
 * found the same value; `ACTIVE_STATE` when what it wrote is still the latest, `HISTORIC_STATE` once a later write
 * replaced it.
 *
 * Search storage, as DataHub derives it from the primary: `PENDING` behind a pending write, `ERROR` behind a refused
 * one, `NO_OP` and `HISTORIC_STATE` likewise; for an active write, `ACTIVE_STATE` once the search indexer's position
 * has passed, in every partition, where the log ended when the write's change logs were published — its change logs
 * are applied, durably — and `PENDING` before. `TRACE_NOT_IMPLEMENTED` where the search index holds nothing of the
 * write (a timeseries aspect) or there is no search index; `UNKNOWN` when the indexer's progress could not be read.
 */
export function traceStatusOf(recorded: RecordedWrite, options: TraceStatusOptions): TraceStatus {
  const primaryStorage = primaryStatusOf(recorded, options.detailed);
  const searchStorage = searchStatusOf(recorded, primaryStorage.writeStatus, options);
  return {
    success: primaryStorage.writeStatus !== 'ERROR' && searchStorage.writeStatus !== 'ERROR',
    primaryStorage,
    searchStorage,
  };
}

function primaryStatusOf(recorded: RecordedWrite, detailed: boolean): TraceStorageStatus {
  if (!recorded.seen) return { writeStatus: 'PENDING', writeMessage: 'Not applied yet.' };
  switch (recorded.status) {
    case 'REJECTED': {
      const reason = recorded.error ?? 'The proposal was refused.';
      return {
        writeStatus: 'ERROR',
        writeMessage: reason,
        ...(detailed ? { writeExceptions: [{ message: reason }] } : {}),
      };
    }
    case 'UNCHANGED':
      return { writeStatus: 'NO_OP' };
    case 'APPLIED':
      return { writeStatus: recorded.current ? 'ACTIVE_STATE' : 'HISTORIC_STATE' };
  }
}

function searchStatusOf(
  recorded: RecordedWrite,
  primary: TraceWriteStatus,
  { timeseries, search }: TraceStatusOptions,
): TraceStorageStatus {
  switch (primary) {
    case 'PENDING':
      return { writeStatus: 'PENDING', writeMessage: 'Pending primary storage write.' };
    case 'ERROR':
      return { writeStatus: 'ERROR', writeMessage: 'Primary storage write failed.' };
    case 'NO_OP':
      return { writeStatus: 'NO_OP' };
    case 'HISTORIC_STATE':
      return { writeStatus: 'HISTORIC_STATE' };
    default:
      break;
  }
  if (timeseries) {
    return { writeStatus: 'TRACE_NOT_IMPLEMENTED', writeMessage: 'The search index holds no timeseries values.' };
  }
  if (!recorded.seen || !recorded.changeLogged) return { writeStatus: 'NO_OP' };
  if (search.kind === 'absent') {
    return { writeStatus: 'TRACE_NOT_IMPLEMENTED', writeMessage: 'This deployment has no search index.' };
  }
  if (search.kind === 'unreadable') return { writeStatus: 'UNKNOWN', writeMessage: search.reason };
  const published = recorded.publishedBefore;
  if (published === null || !passedEvery(search.positions, published)) {
    return { writeStatus: 'PENDING', writeMessage: 'Pending search index write.' };
  }
  return { writeStatus: 'ACTIVE_STATE' };
}

/** Whether the positions have reached every end (a partition the positions do not list has not). */
export function passedEvery(positions: readonly LogEnd[], ends: readonly LogEnd[]): boolean {
  const reached = new Map(positions.map(({ topic, partition, end }) => [`${topic}\u0000${partition}`, BigInt(end)]));
  return ends.every(({ topic, partition, end }) => {
    const position = reached.get(`${topic}\u0000${partition}`);
    return position !== undefined && position >= BigInt(end);
  });
}

/**
 * A trace id as DataHub's trace API takes it: a `traceparent` header value (its second field) or the 32 hexadecimal
 * digits alone; undefined for anything else.
 */
export function traceIdOfPath(input: string): string | undefined {
  const text = input.trim();
  const id = text.includes('-') ? text.split('-')[1] : text;
  return id !== undefined && /^[0-9a-fA-F]{32}$/.test(id) ? id.toLowerCase() : undefined;
}
