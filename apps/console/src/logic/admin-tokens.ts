/**
 * Access tokens as the console makes and lists them: the durations a token may have (GraphQL's
 * `AccessTokenDuration`), the form's checks, expiry in words, which tokens a list shows (one's own, or everyone's
 * for an administrator) and the list's state in its URL. Pure functions (unit-tested in admin-tokens.spec.ts).
 */
import { offsetParam } from './admin-runs';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The durations offered, in order, as GraphQL names them, with their length (null: never expires). */
export const TOKEN_DURATIONS = [
  { value: 'ONE_HOUR', label: '1 hour', millis: HOUR },
  { value: 'ONE_DAY', label: '1 day', millis: DAY },
  { value: 'ONE_WEEK', label: '1 week', millis: 7 * DAY },
  { value: 'ONE_MONTH', label: '1 month (30 days)', millis: 30 * DAY },
  { value: 'THREE_MONTHS', label: '3 months (90 days)', millis: 90 * DAY },
  { value: 'SIX_MONTHS', label: '6 months (180 days)', millis: 180 * DAY },
  { value: 'ONE_YEAR', label: '1 year (365 days)', millis: 365 * DAY },
  { value: 'NO_EXPIRY', label: 'Never expires', millis: null },
] as const;

export type TokenDuration = (typeof TOKEN_DURATIONS)[number]['value'];

export const DEFAULT_TOKEN_DURATION: TokenDuration = 'ONE_MONTH';

export function isTokenDuration(value: string): value is TokenDuration {
  return TOKEN_DURATIONS.some((duration) => duration.value === value);
}

/** When a token made at `now` for `duration` expires (null: never). */
export function expiryOf(duration: TokenDuration, now: number): number | null {
  const millis = TOKEN_DURATIONS.find((candidate) => candidate.value === duration)?.millis;
  return millis === null || millis === undefined ? null : now + millis;
}

/** A token's form as a person fills it in. */
export interface TokenForm {
  readonly name: string;
  readonly description: string;
  readonly duration: string;
  /** The user the token acts as; empty: oneself. */
  readonly actorUrn: string;
}

/** The most characters a name takes (DataHub's UI keeps names short; the server takes any). */
export const TOKEN_NAME_MAX = 100;
export const TOKEN_DESCRIPTION_MAX = 500;

/** What is wrong with the form, field by field (empty when it can be sent). */
export function tokenFormProblems(form: TokenForm): Partial<Record<keyof TokenForm, string>> {
  const problems: Partial<Record<keyof TokenForm, string>> = {};
  const name = form.name.trim();
  if (name === '') problems.name = 'Give the token a name, to know it again in the list.';
  else if (name.length > TOKEN_NAME_MAX) problems.name = `A name takes at most ${TOKEN_NAME_MAX} characters.`;
  if (form.description.length > TOKEN_DESCRIPTION_MAX) {
    problems.description = `A description takes at most ${TOKEN_DESCRIPTION_MAX} characters.`;
  }
  if (!isTokenDuration(form.duration)) problems.duration = 'Choose how long the token works.';
  const actor = form.actorUrn.trim();
  if (actor !== '' && !/^urn:li:corpuser:.+/.test(actor)) {
    problems.actorUrn = 'The user must be a user URN (urn:li:corpuser:<name>).';
  }
  return problems;
}

/** The `createAccessToken` input of a valid form, for the signed-in user `me`. */
export function createTokenInput(form: TokenForm, me: string) {
  const description = form.description.trim();
  return {
    type: 'PERSONAL' as const,
    actorUrn: form.actorUrn.trim() === '' ? me : form.actorUrn.trim(),
    name: form.name.trim(),
    duration: form.duration as TokenDuration,
    ...(description === '' ? {} : { description }),
  };
}

/** A token's expiry in words, at `now`. */
export function expiryText(expiresAt: number | null | undefined, now: number): string {
  if (expiresAt === null || expiresAt === undefined) return 'Never expires';
  const left = expiresAt - now;
  if (left <= 0) return 'Expired';
  if (left < HOUR) return `Expires in ${Math.max(1, Math.round(left / 60_000))} min`;
  if (left < DAY) return `Expires in ${Math.round(left / HOUR)} h`;
  const days = Math.round(left / DAY);
  return `Expires in ${days} day${days === 1 ? '' : 's'}`;
}

export function isExpired(expiresAt: number | null | undefined, now: number): boolean {
  return expiresAt !== null && expiresAt !== undefined && expiresAt <= now;
}

/** Which tokens a list shows: one's own, or everyone's (only with Manage Access Tokens). */
export type TokenScope = 'mine' | 'all';

export interface TokensState {
  readonly scope: TokenScope;
  readonly start: number;
}

export const TOKENS_PAGE_SIZE = 20;

export function tokensStateOf(params: URLSearchParams, canManage: boolean): TokensState {
  return {
    scope: canManage && params.get('scope') === 'all' ? 'all' : 'mine',
    start: offsetParam(params.get('start')),
  };
}

export function tokensParams(state: TokensState): URLSearchParams {
  const params = new URLSearchParams();
  if (state.scope === 'all') params.set('scope', 'all');
  if (state.start > 0) params.set('start', String(state.start));
  return params;
}

/**
 * The `listAccessTokens` filters of a scope: one's own are the tokens acting as oneself (the server already keeps a
 * user without Manage Access Tokens to their own); everyone's, none.
 */
export function tokenFilters(scope: TokenScope, me: string, canManage: boolean) {
  if (scope === 'all' || !canManage) return [];
  return [{ field: 'actorUrn', values: [me], condition: 'EQUAL' }];
}

/** Whether the user may revoke a token: its maker, or anyone with Manage Access Tokens. */
export function mayRevoke(token: { readonly ownerUrn: string }, me: string | undefined, canManage: boolean): boolean {
  return canManage || (me !== undefined && token.ownerUrn === me);
}
