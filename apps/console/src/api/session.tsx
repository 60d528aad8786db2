import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiError } from './errors';
import { gqlOnce } from './graphql';

/** What the console knows of who is using it. */
export interface Session {
  /** `loading` until the server has said; `signed-out` when authentication is on and there is no valid session. */
  readonly state: 'loading' | 'signed-in' | 'anonymous' | 'signed-out' | 'unreachable';
  readonly user?: { readonly urn: string; readonly username: string; readonly displayName?: string | undefined };
  /** Whether the server asks for credentials (`METADATA_SERVICE_AUTH_ENABLED`). */
  readonly authenticationRequired: boolean;
  readonly privileges: Partial<Record<PlatformPrivilege, boolean>>;
  readonly problem?: string;
  /** Reads the session again (after signing in or out). */
  refresh(): Promise<void>;
  signOut(): Promise<void>;
}

/** The platform privileges the console looks at to show or hide what a user may not use. */
export const PLATFORM_PRIVILEGES = [
  'managePolicies',
  'manageTokens',
  'generatePersonalAccessTokens',
  'manageIngestion',
  'manageTests',
  'viewTests',
  'viewAnalytics',
  'manageUserCredentials',
  'manageDomains',
  'manageGlossaries',
  'manageTags',
] as const;
export type PlatformPrivilege = (typeof PLATFORM_PRIVILEGES)[number];

const SESSION_QUERY = `query consoleSession {
  me { corpUser { urn username properties { displayName } } platformPrivileges { ${PLATFORM_PRIVILEGES.join(' ')} } }
  appConfig { authConfig { tokenAuthEnabled } }
}`;

interface SessionAnswer {
  me: {
    corpUser: { urn: string; username: string; properties?: { displayName?: string | null } | null };
    platformPrivileges: Record<PlatformPrivilege, boolean>;
  } | null;
  appConfig: { authConfig: { tokenAuthEnabled: boolean } } | null;
}

/** The anonymous user's URN: the actor of requests without credentials. */
export const ANONYMOUS_URN = 'urn:li:corpuser:UNKNOWN';

const SessionContext = createContext<Session | undefined>(undefined);

/** Reads the session once at start, and again when asked; its children read it with {@link useSession}. */
export function SessionProvider({ children }: { readonly children: ReactNode }) {
  const [state, setState] = useState<Omit<Session, 'refresh' | 'signOut'>>({
    state: 'loading',
    authenticationRequired: false,
    privileges: {},
  });
  const refresh = useCallback(async () => {
    try {
      const answer = await gqlOnce<SessionAnswer>(SESSION_QUERY);
      const me = answer.me;
      const authenticationRequired = answer.appConfig?.authConfig.tokenAuthEnabled ?? false;
      if (me === null) {
        setState({ state: 'signed-out', authenticationRequired: true, privileges: {} });
        return;
      }
      setState({
        state: me.corpUser.urn === ANONYMOUS_URN ? 'anonymous' : 'signed-in',
        authenticationRequired,
        user: {
          urn: me.corpUser.urn,
          username: me.corpUser.username,
          displayName: me.corpUser.properties?.displayName ?? undefined,
        },
        privileges: me.platformPrivileges,
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        setState({ state: 'signed-out', authenticationRequired: true, privileges: {} });
      } else {
        setState({
          state: 'unreachable',
          authenticationRequired: false,
          privileges: {},
          problem: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }, []);
  const signOut = useCallback(async () => {
    await fetch('/logOut', { method: 'POST', credentials: 'same-origin' });
    // A full load: nothing read under the old session (urql's cache) may show under the next one.
    window.location.assign('/logIn');
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const value = useMemo(() => ({ ...state, refresh, signOut }), [state, refresh, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

/** The console's session (inside {@link SessionProvider}). */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === undefined) throw new Error('useSession needs a SessionProvider');
  return session;
}

/** Whether the session's user holds a platform privilege (with authentication off, the anonymous user holds all). */
export function useCan(privilege: PlatformPrivilege): boolean {
  return useSession().privileges[privilege] === true;
}
