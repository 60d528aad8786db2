import { Link, isRouteErrorResponse, useRouteError } from 'react-router';

/** What a page that failed to load or render shows instead of a blank screen. */
export function RouteError() {
  const error = useRouteError();
  const message = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : String(error);
  const stale = /dynamically imported module|Importing a module script failed/i.test(message);
  return (
    <main id="main" className="centered">
      <div className="notice notice-error" role="alert">
        <h1 className="notice-title">This page could not be shown</h1>
        <p>{message}</p>
        <p className="muted">
          {stale
            ? 'Strata was updated since this page was opened: reload it.'
            : 'Reload the page; if it fails again, the browser console and the server log say more.'}
        </p>
        <p>
          <button
            type="button"
            className="button"
            onClick={() => {
              window.location.reload();
            }}
          >
            Reload
          </button>{' '}
          <Link to="/">Home</Link>
        </p>
      </div>
    </main>
  );
}
