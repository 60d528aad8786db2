import type { AspectSpec, EntitySpec } from '@strata/model';
import type { LogRecord } from '@strata/log';

/**
 * The two change-log topics: `versioned` (`MetadataChangeLog_Versioned_v1`, every change of a versioned aspect) and
 * `timeseries` (`MetadataChangeLog_Timeseries_v1`, every point of a timeseries aspect).
 */
export type ChangeLogKind = 'versioned' | 'timeseries';

/** One change log, decoded and resolved against the entity registry: what a hook is given. */
export interface ChangeLogEvent {
  readonly kind: ChangeLogKind;
  /** The log record it came from: its topic, partition, offset, headers and append time. */
  readonly record: LogRecord;
  readonly entity: EntitySpec;
  readonly aspect: AspectSpec;
  readonly urn: string;
  /** DataHub's change type: `UPSERT`, `CREATE`, `RESTATE`, `PATCH`… put the value; `DELETE` removes it. */
  readonly changeType: string;
  /**
   * The aspect value after the change, parsed JSON; undefined for a DELETE, and for every event when no hook of the
   * processor reads values ({@link ChangeLogHook.readsValues}).
   */
  readonly value: unknown;
  /** The value before the change, when the writer knew one (and a hook reads values). */
  readonly previousValue: unknown;
  /** The change's audit stamp: when, and by whom. */
  readonly created: { readonly time: number; readonly actor: string } | undefined;
  /** The system metadata the change carried (run id, last observed…); undefined when values are not parsed. */
  readonly systemMetadata: Readonly<Record<string, unknown>> | undefined;
  /**
   * The change log's own `headers` (the proposal's, copied by the writer): the time range of a timeseries DELETE
   * (`startTimeMillis`, `endTimeMillis`), say. Empty when it had none.
   */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * One piece of work a consumer does for each change log: update search documents, update graph edges, record an
 * audit event. A hook declares what it consumes and does only its own work; the {@link ChangeLogProcessor} owns
 * everything around it (decoding, the registry filter, redelivery, retries, acknowledgements, progress).
 */
export interface ChangeLogHook {
  /**
   * Unique among the hooks a deployment runs: acknowledgements, progress and metrics are reported under it, and the
   * gateway waits for it by this name.
   */
  readonly name: string;
  /** The change logs it consumes. */
  readonly consumes: readonly ChangeLogKind[];
  /**
   * True for a read model that serves reads of the change (search, graph, timeseries values): a write sent with
   * `X-DataHub-Sync-Index-Update: true` is answered only once this hook has applied it. False for trails and
   * automations (audit, metadata-test evaluation), which nobody waits for.
   */
  readonly servesReads: boolean;
  /**
   * False for a hook that never reads `value` or `previousValue` (a trail of who changed what): when no hook of a
   * processor reads them, the aspect values are not parsed at all. Default true.
   */
  readonly readsValues?: boolean;
  /**
   * False for a hook a restatement (`RESTATE`: a restore replaying the primary store) changes nothing for, such as a
   * trail of changes: it is not given them, and a processor whose hooks all say so passes over the change logs the
   * writer marks as restatements (`strata-change-type`) without decoding them. Default true.
   */
  readonly appliesRestatements?: boolean;
  /** Narrows what it is given, e.g. to some entity types. Default: every event of the kinds it consumes. */
  accepts?(event: ChangeLogEvent): boolean;
  /**
   * Applies one batch: the events of one log partition, in log order. Resolves only once the effects are durable.
   * Rejects for a failure that may pass (an engine down or slow): the processor applies the same events again after
   * a backoff, so the hook must be idempotent — and it may see events again after a crash, too.
   */
  apply(events: readonly ChangeLogEvent[]): Promise<void>;
}

/** A hook that serves reads, as a service publishes it: which change logs a write's readers wait on it for. */
export interface ReadModel {
  /** The hook's name, as it acknowledges. */
  readonly name: string;
  /** The topics it consumes (configured names). */
  readonly topics: readonly string[];
}
