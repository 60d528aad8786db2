import type { ReactNode } from 'react';
import { useSession } from '../api/session';
import { Loading } from './components';

/**
 * Holds the pages back until the session is known. Signed out (authentication on, no valid session), every page but
 * the sign-in page sends the browser there, remembering where it was going.
 */
export function SignInGate({ children }: { readonly children: ReactNode }) {
  const session = useSession();
  const onSignIn = window.location.pathname === '/logIn';
  if (session.state === 'loading' && !onSignIn) {
    return (
      <main id="main" className="centered">
        <Loading what="Connecting to Strata" />
      </main>
    );
  }
  if (session.state === 'signed-out' && !onSignIn) {
    const next = window.location.pathname + window.location.search;
    window.location.replace(`/logIn?next=${encodeURIComponent(next)}`);
    return null;
  }
  if (session.state === 'unreachable' && !onSignIn) {
    return (
      <main id="main" className="centered">
        <div className="notice notice-error" role="alert">
          <h1 className="notice-title">Strata cannot be reached</h1>
          <p>{session.problem}</p>
          <p className="muted">Check that the server is running, then reload this page.</p>
          <button type="button" className="button" onClick={() => void session.refresh()}>
            Try again
          </button>
        </div>
      </main>
    );
  }
  return <>{children}</>;
}
