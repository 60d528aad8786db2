/**
 * The audit index: the trail of what was done to the catalog and who logged in, searched by time window and filters,
 * newest first. The audit service keeps it (embedded: SQLite; at scale: Elasticsearch) from the change logs and the
 * usage events.
 *
 * Invariants every adapter guarantees (and `describeAuditIndexContract` checks):
 * - **Idempotent recording.** An event is identified by its `id`; recording the same id again leaves one event (the
 *   later copy). A resolved `record` is durable, and every later search sees it.
 * - **A total order.** Events sort by `timestamp` descending, then `type`, `actorUrn` and `id` ascending (code points),
 *   so that a page ends at a definite event and the next page starts right after it ({@link AuditCursor}): scrolling
 *   returns each event of the window once, and an event recorded meanwhile either sorts after the cursor (and comes
 *   once) or before it (and does not come).
 * - **Filters.** The window is `[startTime, endTime)`. Each list narrows to events whose field is one of its values
 *   (OR within a list); lists combine with AND; an empty list does not narrow.
 * - **Counting.** `total` counts the matching events of the window (the cursor aside), up to {@link AUDIT_TOTAL_LIMIT}.
 */
export interface AuditIndex {
  /** Records events (idempotent by id). Resolves once they are durable and searchable. */
  record(events: readonly AuditEvent[]): Promise<void>;
  /** One page of events, newest first, after the cursor when one is given. */
  search(query: AuditQuery): Promise<AuditPage>;
  /** Removes every event older than `before` (epoch ms, exclusive); resolves with how many went. */
  expire(before: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * One recorded event, in DataHub's usage-event document shape (`datahub_usage_event`): the event `type`, when and by
 * whom, what it concerns and where the request came from. Never an aspect's value.
 */
export interface AuditEvent {
  /** Unique and stable: the same change or login recorded twice has the same id. */
  readonly id: string;
  /** `UpdateAspectEvent`, `CreateAccessTokenEvent`, `LogInEvent`… */
  readonly type: string;
  /** Epoch milliseconds. */
  readonly timestamp: number;
  readonly actorUrn: string;
  readonly entityUrn?: string;
  readonly entityType?: string;
  readonly aspectName?: string;
  /** `RESTLI`, `OPENAPI`… */
  readonly eventSource?: string;
  readonly userAgent?: string;
  readonly sourceIP?: string;
  readonly traceId?: string;
  /** Stored form, `passwordLogin`… */
  readonly loginSource?: string;
  readonly loginDenialReason?: string;
  /** The change type of a change's event (`UPSERT`, `DELETE`, `PATCH`…). */
  readonly changeType?: string;
}

/** The sort values of the last event of a page: `[timestamp, type, actorUrn, id]`. */
export type AuditCursor = readonly [timestamp: number, type: string, actorUrn: string, id: string];

export interface AuditQuery {
  /** Inclusive, epoch ms. */
  readonly startTime: number;
  /** Exclusive, epoch ms. */
  readonly endTime: number;
  readonly eventTypes: readonly string[];
  readonly entityTypes: readonly string[];
  readonly aspectTypes: readonly string[];
  readonly actorUrns: readonly string[];
  /** Events in the page, 1 to {@link AUDIT_MAX_PAGE_SIZE}. */
  readonly size: number;
  readonly after?: AuditCursor;
}

export interface AuditPage {
  readonly events: readonly AuditEvent[];
  /** Matching events in the window, counted up to {@link AUDIT_TOTAL_LIMIT}. */
  readonly total: number;
}

/** Where counting stops, as DataHub's audit search ("only calculated up to 10,000"). */
export const AUDIT_TOTAL_LIMIT = 10_000;
/** The largest page a search returns. */
export const AUDIT_MAX_PAGE_SIZE = 10_000;

/** The cursor of an event: its sort values. */
export function cursorOf(event: AuditEvent): AuditCursor {
  return [event.timestamp, event.type, event.actorUrn, event.id];
}

/** Compares events in the index's order (newest first, then type, actor and id in code-point order). */
export function compareAuditEvents(a: AuditEvent, b: AuditEvent): number {
  if (a.timestamp !== b.timestamp) return b.timestamp - a.timestamp;
  for (const [x, y] of [
    [a.type, b.type],
    [a.actorUrn, b.actorUrn],
    [a.id, b.id],
  ] as const) {
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
