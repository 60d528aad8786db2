import { UndecodableRecordError } from './event-serde';

/** The usage events of `DataHubUsageEvent_v1` that Strata publishes: logins, kept or refused. */
export type UsageEventType = 'LogInEvent' | 'FailedLogInEvent';

/**
 * One usage event, as DataHub's metadata service writes it to `DataHubUsageEvent_v1`: a JSON object with DataHub's
 * keys, `usageSource: "backend"` marking an event of the server (not of a browser). `loginSource` is the stored form
 * (`passwordLogin`); `loginDenialReason` says why a login was refused, never with the password.
 */
export interface UsageEvent {
  readonly type: UsageEventType;
  /** Epoch milliseconds. */
  readonly timestamp: number;
  readonly actorUrn: string;
  readonly loginSource: string;
  readonly loginDenialReason?: string;
  readonly eventSource?: string;
  readonly userAgent?: string;
  readonly sourceIP?: string;
  readonly traceId?: string;
  readonly usageSource: 'backend';
}

const TYPES: ReadonlySet<string> = new Set<UsageEventType>(['LogInEvent', 'FailedLogInEvent']);
const OPTIONAL_TEXT = ['loginDenialReason', 'eventSource', 'userAgent', 'sourceIP', 'traceId'] as const;

export function encodeUsageEvent(event: UsageEvent): Buffer {
  return Buffer.from(JSON.stringify(event), 'utf8');
}

/** Decodes a usage event. Throws {@link UndecodableRecordError} naming what is wrong. */
export function decodeUsageEvent(buffer: Buffer): UsageEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(buffer.toString('utf8'));
  } catch {
    throw new UndecodableRecordError('A usage event must be a JSON object');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UndecodableRecordError('A usage event must be a JSON object');
  }
  const fields = parsed as Record<string, unknown>;
  const { type, timestamp, actorUrn, loginSource } = fields;
  if (typeof type !== 'string' || !TYPES.has(type)) {
    throw new UndecodableRecordError(`Unknown usage event type ${JSON.stringify(type)}`);
  }
  if (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new UndecodableRecordError('A usage event needs a timestamp in epoch milliseconds');
  }
  if (typeof actorUrn !== 'string' || actorUrn === '')
    throw new UndecodableRecordError('A usage event needs an actorUrn');
  if (typeof loginSource !== 'string') throw new UndecodableRecordError('A login event needs a loginSource');
  const event: Record<string, unknown> = { type, timestamp, actorUrn, loginSource, usageSource: 'backend' };
  for (const name of OPTIONAL_TEXT) {
    const value = fields[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw new UndecodableRecordError(`${name} must be a string`);
    event[name] = value;
  }
  return event as unknown as UsageEvent;
}
