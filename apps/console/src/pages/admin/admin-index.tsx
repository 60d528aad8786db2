import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { describeFailure } from '../../api/errors';
import { restJson } from '../../api/rest';
import { useSession } from '../../api/session';
import {
  ADMIN_PAGES,
  allowanceOf,
  probeAllowance,
  type AdminPage,
  type AdminPageId,
  type Allowance,
} from '../../logic/admin-access';
import { Loading, PageTitle } from '../../ui/components';
import './admin.css';

/** The harmless read that tells whether a page's route lets the user in, for pages no platform privilege decides. */
const PROBES: Partial<Record<AdminPageId, () => Promise<unknown>>> = {
  audit: () => restJson('POST', '/openapi/v1/events/audit/search?size=1&includeRaw=false', {}),
  operations: () => restJson('POST', '/api/gms/operations?action=getIndexSizes', {}),
};

/**
 * `/admin`: a card for each administration page the user may use. What the session's privileges decide is decided at
 * once; the audit trail and operations, whose routes ask for privileges the session does not report, are asked
 * (a one-row read) and their card shows once the route lets the user in. The pages refused are listed below with why.
 */
export function Component() {
  const session = useSession();
  const signedIn = session.state === 'signed-in';
  const [probed, setProbed] = useState<Partial<Record<AdminPageId, Allowance>>>({});

  const known = ADMIN_PAGES.map((page) => ({ page, allowance: allowanceOf(page, session.privileges, signedIn) }));
  const toProbe = known
    .filter(({ page, allowance }) => allowance.kind === 'unknown' && PROBES[page.id] !== undefined)
    .map(({ page }) => page.id)
    .join(',');

  useEffect(() => {
    if (session.state === 'loading' || toProbe === '') return;
    let live = true;
    for (const id of toProbe.split(',') as AdminPageId[]) {
      const page = ADMIN_PAGES.find((candidate) => candidate.id === id) as AdminPage;
      PROBES[id]?.().then(
        () => {
          if (live) setProbed((previous) => ({ ...previous, [id]: probeAllowance(page, 'ok') }));
        },
        (error: unknown) => {
          if (live) {
            setProbed((previous) => ({ ...previous, [id]: probeAllowance(page, describeFailure(error).status) }));
          }
        },
      );
    }
    return () => {
      live = false;
    };
  }, [session.state, toProbe]);

  if (session.state === 'loading') return <Loading what="Checking your privileges" />;

  const decided = known.map(({ page, allowance }) => ({
    page,
    allowance:
      allowance.kind === 'unknown' && PROBES[page.id] !== undefined ? (probed[page.id] ?? allowance) : allowance,
    pending: allowance.kind === 'unknown' && PROBES[page.id] !== undefined && probed[page.id] === undefined,
  }));
  const usable = decided.filter(({ allowance, pending }) => allowance.kind !== 'refused' && !pending);
  const refused = decided.filter(({ allowance }) => allowance.kind === 'refused');
  const checking = decided.filter(({ pending }) => pending);

  return (
    <>
      <PageTitle title="Administration">Administration</PageTitle>
      <p className="admin-lead">
        {session.user === undefined || session.state !== 'signed-in'
          ? 'The pages you may use.'
          : `The pages ${session.user.displayName ?? session.user.username} may use.`}{' '}
        The server checks every call again.
      </p>
      {usable.length === 0 && checking.length === 0 ? (
        <p className="notice">None of the administration pages is open to you: ask an administrator for a privilege.</p>
      ) : (
        <ul className="cards" aria-label="Administration pages">
          {usable.map(({ page }) => (
            <li key={page.id} className="card admin-card" data-testid="admin-card">
              <h2>
                <Link to={page.path}>{page.title}</Link>
              </h2>
              <p>{page.summary}</p>
            </li>
          ))}
        </ul>
      )}
      {checking.length > 0 ? (
        <Loading
          what={`Asking the server about ${checking.map(({ page }) => page.title.toLowerCase()).join(' and ')}`}
        />
      ) : null}
      {refused.length > 0 ? (
        <section className="admin-unavailable" aria-labelledby="unavailable-title">
          <h2 id="unavailable-title">Not available to you</h2>
          <ul>
            {refused.map(({ page, allowance }) => (
              <li key={page.id}>
                <strong>{page.title}</strong>: {allowance.kind === 'refused' ? allowance.reason : ''}
                {page.needsCredentials && !signedIn ? (
                  <>
                    {' '}
                    <a href={`/logIn?next=${encodeURIComponent(page.path)}`}>
                      Sign in<span className="visually-hidden"> for the {page.title.toLowerCase()}</span>
                    </a>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}
