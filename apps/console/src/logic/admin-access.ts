/**
 * Who may use which administration page. Each page's access is what its server routes declare: some the console can
 * read beforehand from the session's platform privileges (`me.platformPrivileges`), others only by asking the route
 * (the operations' privileges have no platform-privilege flag). Pure functions (unit-tested in admin-access.spec.ts).
 */

/** The platform privileges the administration pages look at (a subset of the session's). */
export type AdminPrivilege =
  'viewAnalytics' | 'manageTokens' | 'generatePersonalAccessTokens' | 'manageTests' | 'viewTests' | 'manageIngestion';

/** The session's privileges (it holds more than these; only these are read). */
export type AdminPrivileges = Readonly<Partial<Record<string, boolean>>>;

export type AdminPageId = 'runs' | 'audit' | 'operations' | 'tests' | 'tokens';

/** An administration page, what it is for, and what using it takes. */
export interface AdminPage {
  readonly id: AdminPageId;
  readonly path: string;
  readonly title: string;
  readonly summary: string;
  /** Any of these platform privileges lets the console show the page; empty: no platform privilege decides. */
  readonly anyOf: readonly AdminPrivilege[];
  /** The privilege named in a refusal, in the words an administrator finds in the policy editor. */
  readonly needs: string;
  /**
   * Whether the page's route is refused without credentials even when authentication is off (the server checks
   * these routes always: audit trail, operations, tokens).
   */
  readonly needsCredentials: boolean;
  /** Whether the console asks the route itself to learn if the user may use it (a harmless read). */
  readonly probe: boolean;
}

export const ADMIN_PAGES: readonly AdminPage[] = [
  {
    id: 'runs',
    path: '/admin/runs',
    title: 'Ingestion runs',
    summary: 'What each ingestion run wrote, and rolling a run back after a preview.',
    anyOf: [],
    needs: 'View Entity (on ingestion sources)',
    needsCredentials: false,
    probe: false,
  },
  {
    id: 'audit',
    path: '/admin/audit',
    title: 'Audit trail',
    summary: 'Who changed what and when, logins included, filtered by actor, entity, kind and time.',
    anyOf: ['viewAnalytics'],
    needs: 'Get Analytics (or Manage System Operations)',
    needsCredentials: true,
    probe: true,
  },
  {
    id: 'operations',
    path: '/admin/operations',
    title: 'Operations',
    summary: 'Index sizes, running tasks, and rebuilding or restoring the indices.',
    anyOf: [],
    needs: 'Manage System Operations (or Get Timeseries Index Sizes and Restore Indices)',
    needsCredentials: true,
    probe: true,
  },
  {
    id: 'tests',
    path: '/admin/tests',
    title: 'Metadata tests',
    summary: 'The tests defined on the catalog, their rules, and which entities pass or fail them.',
    anyOf: ['viewTests', 'manageTests'],
    needs: 'View Tests (or Manage Tests)',
    needsCredentials: false,
    probe: false,
  },
  {
    id: 'tokens',
    path: '/admin/tokens',
    title: 'Access tokens',
    summary: 'Make personal access tokens for the CLI and scripts, list them and revoke them.',
    anyOf: ['generatePersonalAccessTokens', 'manageTokens'],
    needs: 'Generate Personal Access Tokens (or Manage Access Tokens)',
    needsCredentials: true,
    probe: false,
  },
];

/** The page of an id. */
export function adminPage(id: AdminPageId): AdminPage {
  const page = ADMIN_PAGES.find((candidate) => candidate.id === id);
  if (page === undefined) throw new Error(`No administration page ${id}`);
  return page;
}

/** What the console knows beforehand of whether a user may use a page. */
export type Allowance =
  | { readonly kind: 'allowed' }
  /** The privileges do not say: the route will (a probe, or the page's first call). */
  | { readonly kind: 'unknown' }
  | { readonly kind: 'refused'; readonly reason: string };

/**
 * Whether the session lets a user use a page, from its platform privileges and whether it carries credentials
 * (`signedIn`: false for the anonymous user, who exists only with authentication off).
 */
export function allowanceOf(page: AdminPage, privileges: AdminPrivileges, signedIn: boolean): Allowance {
  if (page.needsCredentials && !signedIn) {
    return {
      kind: 'refused',
      reason: 'This page needs a signed-in user, even with authentication off: sign in with a user that may use it.',
    };
  }
  if (page.anyOf.length > 0 && !page.anyOf.some((privilege) => privileges[privilege] === true)) {
    return { kind: 'refused', reason: refusalSentence(page.needs) };
  }
  return page.probe || page.anyOf.length === 0 ? { kind: 'unknown' } : { kind: 'allowed' };
}

/** The refusal shown when a privilege is missing. */
export function refusalSentence(needs: string): string {
  return `You need the ${needs} privilege; ask an administrator to grant it to you with a policy.`;
}

/**
 * The outcome of asking a page's route: allowed when it answered, refused on 401 or 403, and left unknown (the card
 * stays) when the route failed for another reason — a failure is no answer about privileges.
 */
export function probeAllowance(page: AdminPage, status: number | 'ok'): Allowance {
  if (status === 'ok') return { kind: 'allowed' };
  if (status === 401) {
    return { kind: 'refused', reason: 'Your session has ended or this page needs a signed-in user: sign in again.' };
  }
  if (status === 403) return { kind: 'refused', reason: refusalSentence(page.needs) };
  return { kind: 'unknown' };
}
