import { useCallback, useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { useSearchParams } from 'react-router';
import { describeFailure } from '../../api/errors';
import { restJson } from '../../api/rest';
import {
  actorUrnOf,
  AUDIT_EVENT_TYPES,
  AUDIT_RANGES,
  auditFilterProblem,
  auditFiltersOf,
  auditParams,
  auditRequest,
  auditRowOf,
  DEFAULT_AUDIT_FILTERS,
  isFiltered,
  keptEvents,
  listOf,
  localInputOf,
  millisOfLocalInput,
  shouldScanOn,
  type AuditEvent,
  type AuditFilters,
  type AuditPage,
  type AuditRange,
  type AuditRow,
} from '../../logic/admin-audit';
import { entityTypeLabel, entityTypeOfUrn } from '../../logic/urn';
import { EmptyState, EntityLink, Loading, PageTitle, Pill, Time } from '../../ui/components';
import { ActorLink, AdminFailure, AdminGate } from './admin-ui';

/**
 * `/admin/audit`: the audit trail (`POST /openapi/v1/events/audit/search`), newest first, filtered by actor, entity,
 * kind, entity type, aspect and time window — all in the URL — and read page by page with the route's scroll id
 * ("Load more"). Each row says when, who, what (entity, aspect, change) and from which request.
 */
export function Component() {
  return (
    <AdminGate page="audit">
      <Audit />
    </AdminGate>
  );
}

interface Trail {
  readonly events: readonly AuditEvent[];
  readonly nextScrollId: string | undefined;
  readonly total: number;
  /** Events read (with an entity filter, more are read than kept). */
  readonly scanned: number;
}

function Audit() {
  const [params, setParams] = useSearchParams();
  const filters = auditFiltersOf(params);
  const key = auditParams(filters).toString();
  const problem = auditFilterProblem(filters);
  const [trail, setTrail] = useState<Trail | undefined>();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>();
  const [round, setRound] = useState(0);
  // The window is fixed when the filters are applied: "Load more" continues the same one.
  const anchor = useRef(Date.now());
  const generation = useRef(0);

  const load = useCallback(async (current: AuditFilters, previous: Trail | undefined) => {
    const call = ++generation.current;
    setLoading(true);
    setError(undefined);
    try {
      let events = previous?.events ?? [];
      let scrollId = previous?.nextScrollId;
      let total = previous?.total ?? 0;
      let scanned = previous?.scanned ?? 0;
      let kept = 0;
      let scans = 0;
      let hasNext = true;
      do {
        const request = auditRequest(current, anchor.current, scrollId);
        const page = await restJson<AuditPage>('POST', request.path, request.body);
        if (call !== generation.current) return;
        const found = keptEvents(current, page.usageEvents);
        events = [...events, ...found];
        kept += found.length;
        scans += 1;
        scanned += page.usageEvents.length;
        total = page.total;
        scrollId = page.nextScrollId ?? undefined;
        hasNext = scrollId !== undefined;
      } while (current.entity !== '' && shouldScanOn(kept, scans, hasNext));
      setTrail({ events, nextScrollId: scrollId, total, scanned });
    } catch (failure) {
      if (call === generation.current) setError(failure);
    } finally {
      if (call === generation.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    setTrail(undefined);
    if (problem !== undefined) return;
    anchor.current = Date.now();
    void load(auditFiltersOf(new URLSearchParams(key)), undefined);
    return () => {
      generation.current += 1;
    };
  }, [key, problem, round, load]);

  const rows = (trail?.events ?? []).map(auditRowOf);
  if (error !== undefined && trail === undefined && describeFailure(error).status === 403) {
    // Refused: the filters are of no use.
    return (
      <>
        <PageTitle title="Audit trail">Audit trail</PageTitle>
        <AdminFailure page="audit" error={error} />
      </>
    );
  }
  return (
    <>
      <PageTitle title="Audit trail">Audit trail</PageTitle>
      <p className="admin-lead">
        Every change of the catalog and every sign-in, kept or refused: who, when, what, and from which request.
      </p>
      <AuditFilterForm
        key={key}
        filters={filters}
        onApply={(next) => {
          setParams(auditParams(next));
        }}
      />
      {problem !== undefined ? (
        <p className="notice notice-error" role="alert">
          {problem}
        </p>
      ) : error !== undefined && trail === undefined ? (
        <AdminFailure
          page="audit"
          error={error}
          retry={() => {
            setRound((value) => value + 1);
          }}
        />
      ) : trail === undefined ? (
        <Loading what="Reading the audit trail" />
      ) : (
        <>
          <p className="muted" role="status">
            {filters.entity === ''
              ? `${trail.total >= 10_000 ? 'More than 10,000' : trail.total.toLocaleString()} events in this window; ${rows.length.toLocaleString()} shown.`
              : `${rows.length.toLocaleString()} events of this entity found among the ${trail.scanned.toLocaleString()} read of ${entityTypeLabel(
                  entityTypeOfUrn(filters.entity) ?? 'unknown',
                ).toLowerCase()} events (${trail.total >= 10_000 ? 'more than 10,000' : trail.total.toLocaleString()} in the window).`}
          </p>
          {rows.length === 0 ? (
            <EmptyState>
              No event matches{isFiltered(filters) ? ' these filters' : ' in the last 24 hours'}
              {trail.nextScrollId !== undefined ? ' yet: load more to read further back.' : '.'}
            </EmptyState>
          ) : (
            <AuditTable rows={rows} busy={loading} />
          )}
          {error !== undefined ? <AdminFailure page="audit" error={error} /> : null}
          {trail.nextScrollId !== undefined ? (
            <p>
              <button type="button" className="button" disabled={loading} onClick={() => void load(filters, trail)}>
                Load more
              </button>
            </p>
          ) : rows.length > 0 ? (
            <p className="muted">The end of the window: every matching event is shown.</p>
          ) : null}
          {loading ? <Loading what="Reading more events" /> : null}
        </>
      )}
    </>
  );
}

function AuditTable({ rows, busy }: { readonly rows: readonly AuditRow[]; readonly busy: boolean }) {
  return (
    <div className="table-wrap">
      <table className="table" aria-label="Audit events" aria-busy={busy}>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">What</th>
            <th scope="col">From</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key} data-testid="audit-row">
              <td className="nowrap">
                <Time millis={row.timestamp} />
              </td>
              <td className="wrap-anywhere audit-who">
                {row.actorUrn === undefined ? <span className="muted">unknown</span> : <ActorLink urn={row.actorUrn} />}
              </td>
              <td className="wrap-anywhere">
                <div className="pills">
                  <Pill
                    kind={
                      row.eventType === 'FailedLogInEvent' || row.eventType === 'DeleteEntityEvent'
                        ? 'danger'
                        : 'default'
                    }
                  >
                    {row.kindLabel}
                  </Pill>
                  {row.changeType === undefined ? null : <Pill>{row.changeType}</Pill>}
                </div>
                {row.entityUrn === undefined ? null : (
                  <div>
                    <EntityLink urn={row.entityUrn} />
                    {row.aspectName === undefined ? null : (
                      <>
                        {' · '}
                        <span className="mono">{row.aspectName}</span>
                      </>
                    )}
                  </div>
                )}
                {row.login === undefined ? null : (
                  <div className="muted">
                    {row.login.source}
                    {row.login.denial === undefined ? '' : ` — refused: ${row.login.denial}`}
                  </div>
                )}
              </td>
              <td className="wrap-anywhere audit-from">
                {row.traceId === undefined ? null : (
                  <div>
                    Request <span className="mono">{row.traceId}</span>
                  </div>
                )}
                <div className="muted">
                  {[row.eventSource, row.sourceIp].filter((part) => part !== undefined).join(' · ')}
                </div>
                {row.userAgent === undefined ? null : <div className="muted">{row.userAgent}</div>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The filters as a form: edited freely, applied (to the URL) with the button. */
function AuditFilterForm({
  filters,
  onApply,
}: {
  readonly filters: AuditFilters;
  readonly onApply: (filters: AuditFilters) => void;
}) {
  const [actors, setActors] = useState(filters.actors.join(', '));
  const [entity, setEntity] = useState(filters.entity);
  const [eventTypes, setEventTypes] = useState<readonly string[]>(filters.eventTypes);
  const [entityTypes, setEntityTypes] = useState(filters.entityTypes.join(', '));
  const [aspects, setAspects] = useState(filters.aspects.join(', '));
  const [range, setRange] = useState<AuditRange>(filters.range);
  const [from, setFrom] = useState(localInputOf(filters.from));
  const [to, setTo] = useState(localInputOf(filters.to));

  function submit(event: SyntheticEvent) {
    event.preventDefault();
    onApply({
      actors: listOf(actors).map(actorUrnOf),
      entity: entity.trim(),
      eventTypes,
      entityTypes: listOf(entityTypes),
      aspects: listOf(aspects),
      range,
      from: range === 'custom' ? millisOfLocalInput(from) : undefined,
      to: range === 'custom' ? millisOfLocalInput(to) : undefined,
    });
  }

  function toggle(type: string, on: boolean) {
    setEventTypes((current) => (on ? [...current, type] : current.filter((value) => value !== type)));
  }

  return (
    <form onSubmit={submit} aria-label="Filter the audit trail">
      <div className="admin-toolbar">
        <div className="admin-field">
          <label htmlFor="audit-actor">
            Who <span className="admin-hint">user names or URNs, comma-separated</span>
          </label>
          <input
            id="audit-actor"
            value={actors}
            onChange={(event) => {
              setActors(event.target.value);
            }}
          />
        </div>
        <div className="admin-field admin-field-wide">
          <label htmlFor="audit-entity">
            Entity <span className="admin-hint">URN</span>
          </label>
          <input
            id="audit-entity"
            value={entity}
            placeholder="urn:li:dataset:(…)"
            onChange={(event) => {
              setEntity(event.target.value);
            }}
          />
        </div>
        <div className="admin-field">
          <label htmlFor="audit-entity-type">
            Entity type <span className="admin-hint">e.g. dataset</span>
          </label>
          <input
            id="audit-entity-type"
            value={entityTypes}
            onChange={(event) => {
              setEntityTypes(event.target.value);
            }}
          />
        </div>
        <div className="admin-field">
          <label htmlFor="audit-aspect">
            Aspect <span className="admin-hint">e.g. ownership</span>
          </label>
          <input
            id="audit-aspect"
            value={aspects}
            onChange={(event) => {
              setAspects(event.target.value);
            }}
          />
        </div>
      </div>
      <div className="admin-toolbar">
        <div className="admin-field">
          <label htmlFor="audit-range">When</label>
          <select
            id="audit-range"
            value={range}
            onChange={(event) => {
              setRange(event.target.value as AuditRange);
            }}
          >
            {AUDIT_RANGES.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        {range === 'custom' ? (
          <>
            <div className="admin-field">
              <label htmlFor="audit-from">Since</label>
              <input
                id="audit-from"
                type="datetime-local"
                value={from}
                onChange={(event) => {
                  setFrom(event.target.value);
                }}
              />
            </div>
            <div className="admin-field">
              <label htmlFor="audit-to">Until</label>
              <input
                id="audit-to"
                type="datetime-local"
                value={to}
                onChange={(event) => {
                  setTo(event.target.value);
                }}
              />
            </div>
          </>
        ) : null}
        <details className="admin-details">
          <summary>Kinds of event {eventTypes.length > 0 ? `(${eventTypes.length} chosen)` : '(all)'}</summary>
          <fieldset className="admin-fieldset">
            <legend>Kinds of event</legend>
            <div className="admin-checks">
              {AUDIT_EVENT_TYPES.map((type) => (
                <label key={type.value} className="admin-check">
                  <input
                    type="checkbox"
                    checked={eventTypes.includes(type.value)}
                    onChange={(event) => {
                      toggle(type.value, event.target.checked);
                    }}
                  />
                  {type.label}
                </label>
              ))}
            </div>
          </fieldset>
        </details>
        <button type="submit" className="button button-primary">
          Apply filters
        </button>
        <button
          type="button"
          className="button button-quiet"
          onClick={() => {
            onApply(DEFAULT_AUDIT_FILTERS);
          }}
        >
          Clear
        </button>
      </div>
    </form>
  );
}
