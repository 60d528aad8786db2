import type { EntityRegistry } from '@strata/model';
import type { EventSerde } from '@strata/events';
import type { LogRecord } from '@strata/log';
import type { ChangeLogEvent, ChangeLogKind } from './change-log-hook';

/** Why a change log can never be applied, whatever is retried: it does not decode, or the registry lacks what it names. */
export type UnapplicableReason = 'undecodable' | 'unknown-entity' | 'unknown-aspect' | 'wrong-topic';

/** A change log no hook will ever apply, with the reason, for the logs, the metrics and the acknowledgement. */
export interface UnapplicableChangeLog {
  readonly record: LogRecord;
  readonly kind: ChangeLogKind;
  readonly reason: UnapplicableReason;
  /** What is wrong, for people. */
  readonly detail: string;
}

export type DecodedChangeLog = { readonly event: ChangeLogEvent } | { readonly unapplicable: UnapplicableChangeLog };

/**
 * Decodes a change-log record and resolves it against the registry. Pure apart from the decoding: never throws; a
 * record that cannot be applied comes back as {@link UnapplicableChangeLog}. With `values: false` the aspect values
 * are left unparsed (`value` and `previousValue` undefined), for processors whose hooks never read them.
 */
export function decodeChangeLog(
  record: LogRecord,
  kind: ChangeLogKind,
  serde: EventSerde,
  registry: EntityRegistry,
  { values = true }: { readonly values?: boolean } = {},
): DecodedChangeLog {
  const unapplicable = (reason: UnapplicableReason, detail: string): DecodedChangeLog => ({
    unapplicable: { record, kind, reason, detail },
  });
  let log;
  try {
    log = serde.changeLog.decode(record.value);
  } catch (error) {
    return unapplicable('undecodable', messageOf(error));
  }
  const entity = registry.entity(log.entityType);
  if (entity === undefined) return unapplicable('unknown-entity', `Unknown entity type ${log.entityType}`);
  const aspectName = log.aspectName ?? '';
  const aspect = entity.aspect(aspectName);
  if (aspect === undefined) {
    return unapplicable('unknown-aspect', `Unknown aspect ${aspectName || '(none)'} for entity ${entity.name}`);
  }
  if ((aspect.kind === 'timeseries') !== (kind === 'timeseries')) {
    return unapplicable('wrong-topic', `Aspect ${aspect.name} is ${aspect.kind}, not on the ${kind} change log`);
  }
  let value: unknown;
  let previousValue: unknown;
  if (values) {
    try {
      value = log.aspect === null ? undefined : (JSON.parse(log.aspect.value.toString('utf8')) as unknown);
      previousValue =
        log.previousAspectValue === null
          ? undefined
          : (JSON.parse(log.previousAspectValue.value.toString('utf8')) as unknown);
    } catch (error) {
      return unapplicable('undecodable', `The aspect value is not JSON: ${messageOf(error)}`);
    }
  }
  return {
    event: {
      kind,
      record,
      entity,
      aspect,
      urn: log.entityUrn ?? record.key,
      changeType: log.changeType,
      value,
      previousValue,
      created: log.created === null ? undefined : { time: log.created.time, actor: log.created.actor },
      systemMetadata: values && log.systemMetadata !== null ? withoutNulls(log.systemMetadata) : undefined,
      headers: log.headers ?? {},
    },
  };
}

/** A decoded record as JSON: its absent optional fields (null in Avro) left out. */
function withoutNulls(record: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null && value !== undefined));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
