import { useState, type SyntheticEvent } from 'react';
import { useSearchParams } from 'react-router';
import { errorMessageOf } from '../api/rest';
import { useSession } from '../api/session';
import { PageTitle } from '../ui/components';

/**
 * The sign-in page: a native user's name and password, posted to `/logIn`, which answers with the session cookie
 * (HttpOnly: this page's scripts never see the token). On success the browser goes where it was going.
 */
export function Component() {
  const session = useSession();
  const [params] = useSearchParams();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const next = safeNext(params.get('next'));

  async function submit(event: SyntheticEvent) {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      const response = await fetch('/logIn', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ username, password }),
      });
      if (!response.ok) {
        const body = (await response.json().catch(() => undefined)) as unknown;
        setProblem(
          response.status === 401
            ? 'The user name or password is wrong, or the user may not sign in.'
            : (errorMessageOf(body) ?? `Sign-in failed (${response.status}).`),
        );
        return;
      }
      window.location.assign(next);
    } catch {
      setProblem('Strata cannot be reached: check that the server is running.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="login">
      <form className="login-form" onSubmit={(event) => void submit(event)}>
        <PageTitle title="Sign in">Sign in to Strata</PageTitle>
        {session.state === 'anonymous' ? (
          <p className="notice">
            Authentication is off on this server: you can use the console without signing in.{' '}
            <a href="/">Open the console</a>
          </p>
        ) : null}
        <label htmlFor="username">User name</label>
        <input
          id="username"
          name="username"
          autoComplete="username"
          required
          value={username}
          onChange={(event) => {
            setUsername(event.target.value);
          }}
        />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(event) => {
            setPassword(event.target.value);
          }}
        />
        {problem === undefined ? null : (
          <p className="form-error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

/** Only a path of this console is a place to go after signing in (never another site). */
export function safeNext(next: string | null): string {
  if (next === null || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/logIn')) return '/';
  return next;
}
