import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { ApiError, describeFailure } from '../../api/errors';
import { restJson } from '../../api/rest';
import { ANONYMOUS_URN, useSession } from '../../api/session';
import { adminPage, allowanceOf, refusalSentence, type AdminPageId } from '../../logic/admin-access';
import { EntityLink, ErrorNotice, Loading, PageTitle } from '../../ui/components';
import './admin.css';

/**
 * What the administration pages share: the refusal a user without the page's privilege sees (known beforehand from
 * the session, or answered 403 by the server), a REST read with its loading and error states, a pager for lists the
 * server pages without a total, and a progress bar.
 */

/** A clear refusal: what privilege is missing and who can grant it. */
export function Refusal({
  page,
  reason,
  signIn = false,
}: {
  readonly page: AdminPageId;
  readonly reason?: string | undefined;
  /** Whether signing in (as another user) is the way in. */
  readonly signIn?: boolean;
}) {
  const about = adminPage(page);
  return (
    <div className="notice notice-error admin-refusal" role="alert" data-testid="admin-refusal">
      <p className="notice-title">You may not use the {about.title.toLowerCase()} page</p>
      <p>{reason ?? refusalSentence(about.needs)}</p>
      <p className="pills">
        {signIn ? (
          <a href={`/logIn?next=${encodeURIComponent(window.location.pathname + window.location.search)}`}>Sign in</a>
        ) : null}
        <Link to="/admin">Back to administration</Link>
      </p>
    </div>
  );
}

/** A failure of a page's call: a refusal in plain words when the server answered 403, else the usual notice. */
export function AdminFailure({
  page,
  error,
  retry,
}: {
  readonly page: AdminPageId;
  readonly error: unknown;
  readonly retry?: () => void;
}) {
  if (describeFailure(error).status === 403) {
    return (
      <>
        <Refusal page={page} />
        <details className="admin-details">
          <summary>What the server said</summary>
          <ErrorNotice error={error} />
        </details>
      </>
    );
  }
  return <ErrorNotice error={error} retry={retry} />;
}

/**
 * The page's gate: while the session loads, a loading state; a user the console knows may not use the page gets the
 * refusal instead of it; otherwise the page (which shows the server's refusal if it answers 403).
 */
export function AdminGate({ page, children }: { readonly page: AdminPageId; readonly children: ReactNode }) {
  const session = useSession();
  if (session.state === 'loading') return <Loading what="Checking your privileges" />;
  if (session.state === 'unreachable') return <ErrorNotice error={new ApiError(0, session.problem ?? 'unreachable')} />;
  const about = adminPage(page);
  const signedIn = session.state === 'signed-in';
  const allowance = allowanceOf(about, session.privileges, signedIn);
  if (allowance.kind === 'refused') {
    return (
      <>
        <PageTitle title={about.title}>{about.title}</PageTitle>
        <Refusal page={page} reason={allowance.reason} signIn={!signedIn} />
      </>
    );
  }
  return <>{children}</>;
}

/** A REST read: its answer, whether it is loading, its error, and a way to ask again. */
export interface RestRead<T> {
  readonly data: T | undefined;
  readonly loading: boolean;
  readonly error: unknown;
  readonly refetch: () => void;
}

/**
 * Calls a REST route when `key` changes (and when asked again); an answer to an older call is dropped. `path`
 * undefined: nothing is asked.
 */
export function useRest<T>(
  method: 'GET' | 'POST',
  path: string | undefined,
  body?: unknown,
  key: string = `${method} ${path ?? ''} ${JSON.stringify(body ?? null)}`,
): RestRead<T> {
  const [state, setState] = useState<{ data: T | undefined; loading: boolean; error: unknown }>({
    data: undefined,
    loading: path !== undefined,
    error: undefined,
  });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  const request = useRef({ method, path, body });
  request.current = { method, path, body };
  useEffect(() => {
    const { method: verb, path: target, body: payload } = request.current;
    if (target === undefined) {
      setState({ data: undefined, loading: false, error: undefined });
      return;
    }
    const call = ++latest.current;
    setState((previous) => ({ ...previous, loading: true, error: undefined }));
    restJson<T>(verb, target, payload).then(
      (data) => {
        if (call === latest.current) setState({ data, loading: false, error: undefined });
      },
      (error: unknown) => {
        if (call === latest.current) setState({ data: undefined, loading: false, error });
      },
    );
  }, [key, round]);
  useEffect(
    () => () => {
      latest.current += 1;
    },
    [],
  );
  const refetch = useCallback(() => {
    setRound((value) => value + 1);
  }, []);
  return { ...state, refetch };
}

/** Previous / next over a list the server pages without a total: `hasMore` says whether a next page exists. */
export function MorePager({
  start,
  count,
  shown,
  hasMore,
  onPage,
  noun = 'rows',
}: {
  readonly start: number;
  readonly count: number;
  readonly shown: number;
  readonly hasMore: boolean;
  readonly onPage: (start: number) => void;
  readonly noun?: string;
}) {
  if (start === 0 && !hasMore) return null;
  return (
    <nav className="pager" aria-label="Pagination">
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
        {noun} {shown === 0 ? 0 : start + 1}–{start + shown}
        {hasMore ? ' (more follow)' : ''}
      </span>
      <button
        type="button"
        className="button"
        disabled={!hasMore}
        onClick={() => {
          onPage(start + count);
        }}
      >
        Next
      </button>
    </nav>
  );
}

/** A progress bar with its figure for screen readers; `fraction` undefined: indeterminate. */
export function ProgressBar({ fraction, label }: { readonly fraction: number | undefined; readonly label: string }) {
  const percent = fraction === undefined ? undefined : Math.round(fraction * 100);
  return (
    <div
      className={`progress${percent === undefined ? ' progress-indeterminate' : ''}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      {...(percent === undefined ? {} : { 'aria-valuenow': percent })}
    >
      <div className="progress-fill" style={{ width: percent === undefined ? '30%' : `${percent}%` }} />
    </div>
  );
}

/** A labelled figure in a row of figures. */
export function Figure({ label, children }: { readonly label: string; readonly children: ReactNode }) {
  return (
    <div className="figure">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** Copies a text, saying so (with a fallback to selecting it when the clipboard is not available). */
export function CopyButton({ text, label = 'Copy' }: { readonly text: string; readonly label?: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
  }
  return (
    <>
      <button type="button" className="button button-primary" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" aria-live="polite" className="muted">
        {copied === 'yes'
          ? 'Copied to the clipboard.'
          : copied === 'no'
            ? 'Copying failed: select the text and copy it.'
            : ''}
      </span>
    </>
  );
}

/** A user who did something: a link to their page, or "anonymous" for requests without credentials. */
export function ActorLink({ urn }: { readonly urn: string }) {
  if (urn === ANONYMOUS_URN) return <span title={urn}>anonymous</span>;
  return <EntityLink urn={urn} />;
}
