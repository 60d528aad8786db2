import { useEffect, type ReactNode } from 'react';
import { Link, NavLink } from 'react-router';
import { describeFailure } from '../api/errors';
import { displayNameOfUrn, entityPath } from '../logic/urn';

/**
 * The console's small design system: page titles, loading and error states, buttons, tabs, pills, entity links,
 * times and pagers. Styles are in theme.css; every control is a native element (keyboard and screen readers work
 * without help) with a visible focus ring.
 */

/** The page's heading, which is also the window's title. */
export function PageTitle({ children, title }: { readonly children: ReactNode; readonly title: string }) {
  useEffect(() => {
    document.title = `${title} · Strata`;
  }, [title]);
  return <h1 className="page-title">{children}</h1>;
}

/** A polite "loading" that screen readers announce. */
export function Loading({ what = 'Loading' }: { readonly what?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {what}…
    </p>
  );
}

/** A failure, said plainly, with what to do and (when given) a way to retry. */
export function ErrorNotice({ error, retry }: { readonly error: unknown; readonly retry?: () => void }) {
  const failure = describeFailure(error);
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">
        {failure.title}
        {failure.status > 0 ? <span className="muted"> ({failure.status})</span> : null}
      </p>
      <p>{failure.detail}</p>
      <p className="muted">{failure.hint}</p>
      {failure.status === 401 ? (
        <p>
          <a href={`/logIn?next=${encodeURIComponent(window.location.pathname + window.location.search)}`}>Sign in</a>
        </p>
      ) : null}
      {retry === undefined ? null : (
        <button type="button" className="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** An informative note (no results, nothing to show yet). */
export function EmptyState({ children }: { readonly children: ReactNode }) {
  return <div className="notice notice-empty">{children}</div>;
}

/** Tabs as links, so that each tab is a URL; the current one is marked for assistive technology. */
export function TabLinks({
  tabs,
  label,
}: {
  readonly tabs: readonly { readonly to: string; readonly label: string; readonly end?: boolean }[];
  readonly label: string;
}) {
  return (
    <nav className="tabs" aria-label={label}>
      {tabs.map((tab) => (
        <NavLink key={tab.to} to={tab.to} end={tab.end ?? true} className="tab">
          {tab.label}
        </NavLink>
      ))}
    </nav>
  );
}

/** A tag, term, owner or other label. */
export function Pill({
  children,
  kind = 'default',
  title,
}: {
  readonly children: ReactNode;
  readonly kind?: 'default' | 'tag' | 'term' | 'owner' | 'warning' | 'danger' | 'ok';
  readonly title?: string;
}) {
  return (
    <span className={`pill pill-${kind}`} title={title}>
      {children}
    </span>
  );
}

/** A link to an entity's page, named by `name` or, when none is known, by its URN. */
export function EntityLink({
  urn,
  name,
  tab,
}: {
  readonly urn: string;
  readonly name?: string | null | undefined;
  readonly tab?: string;
}) {
  return (
    <Link to={entityPath(urn, tab)} title={urn}>
      {name ?? displayNameOfUrn(urn)}
    </Link>
  );
}

/** A time from epoch milliseconds: the local date and time, with the ISO instant on hover. */
export function Time({ millis }: { readonly millis: number | null | undefined }) {
  if (millis === null || millis === undefined || millis <= 0) return <span className="muted">—</span>;
  const date = new Date(millis);
  return (
    <time dateTime={date.toISOString()} title={date.toISOString()}>
      {date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}

/** Previous / next over a result list of `total` rows shown `count` at a time from `start`. */
export function Pager({
  start,
  count,
  total,
  onPage,
}: {
  readonly start: number;
  readonly count: number;
  readonly total: number;
  readonly onPage: (start: number) => void;
}) {
  if (total <= count && start === 0) return null;
  const last = Math.min(start + count, total);
  return (
    <nav className="pager" aria-label="Result pages">
      <button
        type="button"
        className="button"
        disabled={start === 0}
        onClick={() => {
          onPage(Math.max(0, start - count));
        }}
      >
        Previous
      </button>
      <span>
        {total === 0 ? 0 : start + 1}–{last} of {total.toLocaleString()}
      </span>
      <button
        type="button"
        className="button"
        disabled={last >= total}
        onClick={() => {
          onPage(start + count);
        }}
      >
        Next
      </button>
    </nav>
  );
}
