/**
 * The audit trail page's rules: its filters and their URL, the request `POST /openapi/v1/events/audit/search` takes
 * for them (query: window, size, scroll id; body: event types, entity types, aspects, actors), and each event shaped
 * for a row: when, who, what, from where. The route filters by actor, kind, entity type and aspect, not by entity: an
 * entity filter narrows the request to the entity's type and keeps the events of that entity from each page. Pure
 * functions (unit-tested in admin-audit.spec.ts).
 */
import { entityTypeOfUrn } from './urn';

/** The kinds of events the audit service records, grouped for the filter. */
export const AUDIT_EVENT_TYPES = [
  { value: 'UpdateAspectEvent', label: 'Aspect written' },
  { value: 'DeleteEntityEvent', label: 'Aspect or entity deleted' },
  { value: 'EntityEvent', label: 'Other change' },
  { value: 'CreateUserEvent', label: 'User created' },
  { value: 'UpdateUserEvent', label: 'User updated' },
  { value: 'CreatePolicyEvent', label: 'Policy created' },
  { value: 'UpdatePolicyEvent', label: 'Policy updated' },
  { value: 'DeletePolicyEvent', label: 'Policy deleted' },
  { value: 'CreateAccessTokenEvent', label: 'Access token made' },
  { value: 'RevokeAccessTokenEvent', label: 'Access token revoked' },
  { value: 'CreateIngestionSourceEvent', label: 'Ingestion source created' },
  { value: 'UpdateIngestionSourceEvent', label: 'Ingestion source updated' },
  { value: 'LogInEvent', label: 'Signed in' },
  { value: 'FailedLogInEvent', label: 'Sign-in refused' },
] as const;

const EVENT_TYPE_VALUES = new Set<string>(AUDIT_EVENT_TYPES.map((type) => type.value));

/** The label of an event type (its own name when unknown). */
export function eventTypeLabel(type: string): string {
  return AUDIT_EVENT_TYPES.find((known) => known.value === type)?.label ?? type;
}

/** The time windows offered, as the URL names them. */
export const AUDIT_RANGES = [
  { value: '1h', label: 'Last hour', millis: 3_600_000 },
  { value: '24h', label: 'Last 24 hours', millis: 86_400_000 },
  { value: '7d', label: 'Last 7 days', millis: 7 * 86_400_000 },
  { value: '30d', label: 'Last 30 days', millis: 30 * 86_400_000 },
  { value: '365d', label: 'Last 365 days', millis: 365 * 86_400_000 },
  { value: 'custom', label: 'Between two dates', millis: 0 },
] as const;

export type AuditRange = (typeof AUDIT_RANGES)[number]['value'];

const RANGE_VALUES = new Set<string>(AUDIT_RANGES.map((range) => range.value));

/** The audit page's filters, as its URL holds them. */
export interface AuditFilters {
  /** User URNs (a bare user name stands for `urn:li:corpuser:<name>`). */
  readonly actors: readonly string[];
  /** One entity's URN, or empty. */
  readonly entity: string;
  readonly eventTypes: readonly string[];
  readonly entityTypes: readonly string[];
  readonly aspects: readonly string[];
  readonly range: AuditRange;
  /** Epoch ms, for the `custom` range: from (inclusive) and to (exclusive); undefined: open. */
  readonly from: number | undefined;
  readonly to: number | undefined;
}

export const DEFAULT_AUDIT_FILTERS: AuditFilters = {
  actors: [],
  entity: '',
  eventTypes: [],
  entityTypes: [],
  aspects: [],
  range: '24h',
  from: undefined,
  to: undefined,
};

/** A user URN for what a person types: a URN as it is, a bare name as a user's. */
export function actorUrnOf(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  return trimmed.startsWith('urn:li:') ? trimmed : `urn:li:corpuser:${trimmed}`;
}

/** The values of a comma-separated list, trimmed, without empties or repeats. */
export function listOf(text: string | null): string[] {
  if (text === null) return [];
  return [
    ...new Set(
      text
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== ''),
    ),
  ];
}

function millisParam(value: string | null): number | undefined {
  if (value === null || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}

/** The filters a URL holds (unknown values are dropped rather than sent). */
export function auditFiltersOf(params: URLSearchParams): AuditFilters {
  const range = params.get('range');
  return {
    actors: listOf(params.get('actor')).map(actorUrnOf),
    entity: (params.get('entity') ?? '').trim(),
    eventTypes: listOf(params.get('type')).filter((type) => EVENT_TYPE_VALUES.has(type)),
    entityTypes: listOf(params.get('entityType')),
    aspects: listOf(params.get('aspect')),
    range: range !== null && RANGE_VALUES.has(range) ? (range as AuditRange) : DEFAULT_AUDIT_FILTERS.range,
    from: millisParam(params.get('from')),
    to: millisParam(params.get('to')),
  };
}

/** The URL of filters: only what differs from the defaults. */
export function auditParams(filters: AuditFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.actors.length > 0) params.set('actor', filters.actors.join(','));
  if (filters.entity !== '') params.set('entity', filters.entity);
  if (filters.eventTypes.length > 0) params.set('type', filters.eventTypes.join(','));
  if (filters.entityTypes.length > 0) params.set('entityType', filters.entityTypes.join(','));
  if (filters.aspects.length > 0) params.set('aspect', filters.aspects.join(','));
  if (filters.range !== DEFAULT_AUDIT_FILTERS.range) params.set('range', filters.range);
  if (filters.range === 'custom') {
    if (filters.from !== undefined) params.set('from', String(filters.from));
    if (filters.to !== undefined) params.set('to', String(filters.to));
  }
  return params;
}

/** Whether any filter narrows the trail beyond the default window. */
export function isFiltered(filters: AuditFilters): boolean {
  return auditParams(filters).toString() !== '';
}

/** The window a search asks for, `[startTime, endTime)` in epoch ms, at `now`. */
export function windowOf(filters: AuditFilters, now: number): { startTime: number; endTime: number } {
  if (filters.range === 'custom') {
    return { startTime: filters.from ?? 0, endTime: filters.to ?? now };
  }
  const span = AUDIT_RANGES.find((range) => range.value === filters.range)?.millis ?? 86_400_000;
  return { startTime: now - span, endTime: now };
}

/** A problem with the filters to say before asking the server, or undefined. */
export function auditFilterProblem(filters: AuditFilters): string | undefined {
  if (filters.entity !== '' && entityTypeOfUrn(filters.entity) === undefined) {
    return `“${filters.entity}” is not an entity URN (urn:li:<type>:<key>).`;
  }
  if (
    filters.range === 'custom' &&
    filters.from !== undefined &&
    filters.to !== undefined &&
    filters.from >= filters.to
  ) {
    return 'The start of the time range must be before its end.';
  }
  return undefined;
}

/** Events asked per page; with an entity filter, more are read per page and those of the entity kept. */
export const AUDIT_PAGE_SIZE = 25;
export const AUDIT_SCAN_PAGE_SIZE = 500;

/** The request for one page: the query string and the body of the search route. */
export function auditRequest(
  filters: AuditFilters,
  now: number,
  scrollId: string | undefined,
): { path: string; body: Record<string, string[]> } {
  const { startTime, endTime } = windowOf(filters, now);
  const query = new URLSearchParams({
    startTime: String(startTime),
    endTime: String(endTime),
    size: String(filters.entity === '' ? AUDIT_PAGE_SIZE : AUDIT_SCAN_PAGE_SIZE),
    includeRaw: 'true',
  });
  if (scrollId !== undefined) query.set('scrollId', scrollId);
  const entityType = filters.entity === '' ? undefined : entityTypeOfUrn(filters.entity);
  const entityTypes = entityType === undefined ? filters.entityTypes : [entityType];
  const body: Record<string, string[]> = {};
  if (filters.eventTypes.length > 0) body.eventTypes = [...filters.eventTypes];
  if (entityTypes.length > 0) body.entityTypes = [...entityTypes];
  if (filters.aspects.length > 0) body.aspectTypes = [...filters.aspects];
  if (filters.actors.length > 0) body.actorUrns = [...filters.actors];
  return { path: `/openapi/v1/events/audit/search?${query.toString()}`, body };
}

/** One event as the search route answers it. */
export interface AuditEvent {
  readonly eventType: string;
  readonly timestamp: number;
  readonly actorUrn?: string | null;
  readonly sourceIP?: string | null;
  readonly eventSource?: string | null;
  readonly userAgent?: string | null;
  readonly telemetryTraceId?: string | null;
  readonly entityUrn?: string | null;
  readonly entityType?: string | null;
  readonly aspectName?: string | null;
  readonly loginSource?: string | null;
  readonly rawUsageEvent?: Record<string, unknown> | null;
}

export interface AuditPage {
  readonly nextScrollId?: string | null;
  readonly count: number;
  readonly total: number;
  readonly usageEvents: readonly AuditEvent[];
}

/** An event as a row shows it. */
export interface AuditRow {
  readonly key: string;
  readonly timestamp: number;
  readonly actorUrn: string | undefined;
  readonly eventType: string;
  readonly kindLabel: string;
  readonly entityUrn: string | undefined;
  readonly aspectName: string | undefined;
  readonly changeType: string | undefined;
  /** For a login: its source and, for a refusal, the reason. */
  readonly login: { readonly source: string; readonly denial: string | undefined } | undefined;
  readonly traceId: string | undefined;
  readonly sourceIp: string | undefined;
  readonly eventSource: string | undefined;
  readonly userAgent: string | undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Shapes an event for its row. */
export function auditRowOf(event: AuditEvent, index: number): AuditRow {
  const raw = event.rawUsageEvent ?? {};
  const login = event.eventType === 'LogInEvent' || event.eventType === 'FailedLogInEvent';
  return {
    key: text(raw.eventId) ?? `${event.timestamp}-${event.eventType}-${index}`,
    timestamp: event.timestamp,
    actorUrn: text(event.actorUrn),
    eventType: event.eventType,
    kindLabel: eventTypeLabel(event.eventType),
    entityUrn: text(event.entityUrn),
    aspectName: text(event.aspectName),
    changeType: text(raw.changeType),
    login: login
      ? { source: text(event.loginSource) ?? text(raw.loginSource) ?? 'unknown', denial: text(raw.loginDenialReason) }
      : undefined,
    traceId: text(event.telemetryTraceId) ?? text(raw.traceId),
    sourceIp: text(event.sourceIP),
    eventSource: text(event.eventSource),
    userAgent: text(event.userAgent),
  };
}

/** The events of a page the filters keep: with an entity filter, the entity's only (the route cannot narrow to one). */
export function keptEvents(filters: AuditFilters, events: readonly AuditEvent[]): AuditEvent[] {
  if (filters.entity === '') return [...events];
  return events.filter((event) => event.entityUrn === filters.entity);
}

/**
 * Whether to read the next page at once, with an entity filter: until a page's worth of the entity's events is
 * shown, as long as the scroll goes on and no more than `maxScans` pages were read for this "Load more".
 */
export function shouldScanOn(kept: number, scans: number, hasNext: boolean, maxScans = 4): boolean {
  return hasNext && kept < AUDIT_PAGE_SIZE && scans < maxScans;
}

/** `datetime-local` input text (local time, minutes) of epoch ms, and back. */
export function localInputOf(millis: number | undefined): string {
  if (millis === undefined) return '';
  const date = new Date(millis);
  const pad = (value: number) => String(value).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}

export function millisOfLocalInput(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return undefined;
  const millis = new Date(value).getTime();
  return Number.isNaN(millis) ? undefined : millis;
}
