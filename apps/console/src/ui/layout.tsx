import { Suspense } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigation } from 'react-router';
import { useSession } from '../api/session';
import { Loading } from './components';
import { GlobalSearch } from './global-search';

/**
 * Every page's frame: a skip link, the header (the catalog's name, the search box, the pages, who is signed in) and
 * the page itself. The administrators' pages are listed only to a user holding one of their privileges.
 */
export function Layout() {
  const session = useSession();
  const navigation = useNavigation();
  const location = useLocation();
  const admin =
    session.privileges.viewAnalytics === true ||
    session.privileges.manageTokens === true ||
    session.privileges.manageTests === true ||
    session.privileges.viewTests === true ||
    session.privileges.generatePersonalAccessTokens === true;
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <Link to="/" className="brand" aria-label="Strata home">
          <span className="brand-mark" aria-hidden="true" />
          Strata
        </Link>
        {location.pathname === '/' ? null : <GlobalSearch />}
        <nav className="app-nav" aria-label="Main">
          <NavLink to="/search">Search</NavLink>
          <NavLink to="/browse">Browse</NavLink>
          <NavLink to="/admin/runs">Runs</NavLink>
          {admin ? <NavLink to="/admin">Administration</NavLink> : null}
        </nav>
        <UserMenu />
      </header>
      {session.state === 'anonymous' ? (
        <aside className="banner" aria-label="Authentication">
          Authentication is off: you act as the anonymous user, who may read and edit the catalog. The audit trail,
          operations and access tokens need a user: <a href="/logIn">sign in</a>.
        </aside>
      ) : null}
      <main id="main" tabIndex={-1}>
        {navigation.state === 'loading' ? <div className="route-progress" aria-hidden="true" /> : null}
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </main>
      <footer className="app-footer">
        <a href="/openapi/swagger-ui">REST API</a>
        <a href="/restli/docs">Rest.li resources</a>
        <a href="/api/graphql">GraphQL</a>
        <a href="/health">Health</a>
      </footer>
    </>
  );
}

function UserMenu() {
  const session = useSession();
  if (session.state === 'signed-in' && session.user !== undefined) {
    return (
      <div className="user-menu">
        <span title={session.user.urn}>{session.user.displayName ?? session.user.username}</span>
        <button type="button" className="button button-quiet" onClick={() => void session.signOut()}>
          Sign out
        </button>
      </div>
    );
  }
  if (session.state === 'anonymous') return <div className="user-menu muted">Anonymous</div>;
  return null;
}
