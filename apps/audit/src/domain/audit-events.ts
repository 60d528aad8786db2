/**
 * What the audit trail records, as pure functions: a change of the catalog (a change log) or a login (a usage event)
 * becomes one audit event, typed as DataHub types its usage events, with the actor, time and origin of the request
 * that caused it — never an aspect's value.
 */
import type { AuditEvent } from '@strata/indices';

/** The event types of DataHub's audit trail. */
export const AUDIT_EVENT_TYPES = [
  'CreateAccessTokenEvent',
  'RevokeAccessTokenEvent',
  'CreateUserEvent',
  'UpdateUserEvent',
  'CreatePolicyEvent',
  'UpdatePolicyEvent',
  'DeletePolicyEvent',
  'CreateIngestionSourceEvent',
  'UpdateIngestionSourceEvent',
  'UpdateAspectEvent',
  'DeleteEntityEvent',
  'EntityEvent',
  'LogInEvent',
  'FailedLogInEvent',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** DataHub's login sources: the API's name of each, and the form its events store. */
export const LOGIN_SOURCES: Readonly<Record<string, string>> = {
  PASSWORD_RESET: 'passwordReset',
  PASSWORD_LOGIN: 'passwordLogin',
  FALLBACK_LOGIN: 'fallbackLogin',
  SIGN_UP_LINK_LOGIN: 'signUpLinkLogin',
  GUEST_LOGIN: 'guestLogin',
  SSO_LOGIN: 'ssoLogin',
};

/** The API's name of a stored login source (matched case-insensitively, as DataHub does), or the stored form. */
export function loginSourceName(stored: string): string {
  const lower = stored.toLowerCase();
  return Object.entries(LOGIN_SOURCES).find(([, value]) => value.toLowerCase() === lower)?.[0] ?? stored;
}

/** Change types that put a value (DataHub's create and update family). */
const PUTS = new Set(['UPSERT', 'CREATE', 'CREATE_ENTITY', 'PATCH', 'UPDATE']);

/** The dedicated event of a put of these aspects (DataHub's mapping). */
const PUT_EVENTS: Readonly<Record<string, AuditEventType>> = {
  dataHubAccessTokenKey: 'CreateAccessTokenEvent',
  dataHubIngestionSourceKey: 'CreateIngestionSourceEvent',
  dataHubIngestionSourceInfo: 'UpdateIngestionSourceEvent',
  dataHubPolicyKey: 'CreatePolicyEvent',
  dataHubPolicyInfo: 'UpdatePolicyEvent',
  corpUserKey: 'CreateUserEvent',
  corpUserCredentials: 'UpdateUserEvent',
  corpUserEditableInfo: 'UpdateUserEvent',
  corpUserInfo: 'UpdateUserEvent',
  corpUserSettings: 'UpdateUserEvent',
  corpUserStatus: 'UpdateUserEvent',
  groupMembership: 'UpdateUserEvent',
  roleMembership: 'UpdateUserEvent',
  nativeGroupMembership: 'UpdateUserEvent',
};

/** The dedicated event of a delete of these aspects. */
const DELETE_EVENTS: Readonly<Record<string, AuditEventType>> = {
  dataHubAccessTokenKey: 'RevokeAccessTokenEvent',
  dataHubPolicyKey: 'DeletePolicyEvent',
};

/**
 * Which aspects' changes the trail records as generic events (`UpdateAspectEvent`, `DeleteEntityEvent`,
 * `EntityEvent`): every aspect (`all`, the default), or those listed. The dedicated events (tokens, users, policies,
 * ingestion sources) are recorded whatever this says.
 */
export type AuditedAspects = 'all' | ReadonlySet<string>;

/** Parses `AUDIT_ASPECTS`: `*` for every aspect, or aspect names separated by commas. */
export function auditedAspectsOf(setting: string): AuditedAspects {
  const names = setting
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return names.includes('*') ? 'all' : new Set(names);
}

/** A change of the catalog, as the audit hook sees a decoded change log. */
export interface Change {
  /** The change's identity (`strata-change-id`), else its log position. */
  readonly id: string;
  readonly entityUrn: string;
  readonly entityType: string;
  readonly aspectName: string;
  readonly changeType: string;
  /** The change's audit stamp; absent, the log record's time and the system actor. */
  readonly time: number;
  readonly actor: string;
  /** The origin headers of the request that caused it. */
  readonly sourceIp?: string | undefined;
  readonly userAgent?: string | undefined;
  readonly eventSource?: string | undefined;
  readonly traceId?: string | undefined;
}

/** The type of the event a change makes, or undefined when the trail does not record it. */
export function eventTypeOf(
  change: Pick<Change, 'aspectName' | 'changeType'>,
  audited: AuditedAspects,
): AuditEventType | undefined {
  // A restatement replays what the primary store holds (an index rebuild): nothing changed.
  if (change.changeType === 'RESTATE') return undefined;
  const dedicated = (PUTS.has(change.changeType) ? PUT_EVENTS : change.changeType === 'DELETE' ? DELETE_EVENTS : {})[
    change.aspectName
  ];
  if (dedicated !== undefined) return dedicated;
  if (audited !== 'all' && !audited.has(change.aspectName)) return undefined;
  if (PUTS.has(change.changeType)) return 'UpdateAspectEvent';
  return change.changeType === 'DELETE' ? 'DeleteEntityEvent' : 'EntityEvent';
}

/** The audit event of a change, or undefined when the trail does not record it. */
export function auditEventOfChange(change: Change, audited: AuditedAspects): AuditEvent | undefined {
  const type = eventTypeOf(change, audited);
  if (type === undefined) return undefined;
  return {
    id: change.id,
    type,
    timestamp: change.time,
    actorUrn: change.actor,
    entityUrn: change.entityUrn,
    entityType: change.entityType,
    aspectName: change.aspectName,
    changeType: change.changeType,
    ...origin(change),
  };
}

/** A login, kept or refused, as the gateway published it. */
export interface Login {
  readonly id: string;
  readonly succeeded: boolean;
  readonly time: number;
  readonly actor: string;
  /** Stored form (`passwordLogin`). */
  readonly loginSource: string;
  readonly denialReason?: string | undefined;
  readonly sourceIp?: string | undefined;
  readonly userAgent?: string | undefined;
  readonly eventSource?: string | undefined;
  readonly traceId?: string | undefined;
}

export function auditEventOfLogin(login: Login): AuditEvent {
  return {
    id: login.id,
    type: login.succeeded ? 'LogInEvent' : 'FailedLogInEvent',
    timestamp: login.time,
    actorUrn: login.actor,
    loginSource: login.loginSource,
    ...(login.denialReason === undefined ? {} : { loginDenialReason: login.denialReason }),
    ...origin(login),
  };
}

function origin(from: Pick<Change, 'sourceIp' | 'userAgent' | 'eventSource' | 'traceId'>): Partial<AuditEvent> {
  return {
    ...(from.eventSource === undefined ? {} : { eventSource: from.eventSource }),
    ...(from.userAgent === undefined ? {} : { userAgent: from.userAgent }),
    ...(from.sourceIp === undefined ? {} : { sourceIP: from.sourceIp }),
    ...(from.traceId === undefined ? {} : { traceId: from.traceId }),
  };
}

/**
 * An event as the audit search answers it: DataHub's `UsageEventResult` — the common fields, the entity's for entity
 * events, `loginSource` (by its API name) for logins — and, when asked, the stored document as `rawUsageEvent`.
 */
export function usageEventResult(event: AuditEvent, includeRaw: boolean): Record<string, unknown> {
  const login = event.type === 'LogInEvent' || event.type === 'FailedLogInEvent';
  return {
    eventType: event.type,
    timestamp: event.timestamp,
    actorUrn: event.actorUrn,
    sourceIP: event.sourceIP ?? null,
    eventSource: event.eventSource ?? null,
    userAgent: event.userAgent ?? null,
    telemetryTraceId: event.traceId ?? null,
    ...(login
      ? { loginSource: event.loginSource === undefined ? null : loginSourceName(event.loginSource) }
      : {
          entityUrn: event.entityUrn ?? null,
          entityType: event.entityType ?? null,
          aspectName: event.aspectName ?? null,
        }),
    ...(includeRaw ? { rawUsageEvent: rawUsageEvent(event) } : {}),
  };
}

/** The stored document with DataHub's keys, as DataHub's search returns it in `rawUsageEvent`. */
function rawUsageEvent(event: AuditEvent): Record<string, unknown> {
  const { id, ...fields } = event;
  return { ...fields, eventId: id, usageSource: 'backend' };
}
