import { ForbiddenError } from '@strata/model';

/**
 * The console's session cookie: the access token a sign-in made, kept where page scripts cannot read it (`HttpOnly`),
 * sent to this site only (`SameSite=Strict`), and over TLS only when the request came over TLS (`Secure`, seen from
 * the request or from a TLS-terminating proxy's `X-Forwarded-Proto`). A request carrying it without an
 * `Authorization` header acts as the token's user; one that changes something must come from a page of this site.
 */
export const SESSION_COOKIE = 'strata_session';

/** The token of the session cookie in a `Cookie` header, if any. */
export function sessionTokenOf(cookieHeader: string | undefined): string | undefined {
  if (cookieHeader === undefined) return undefined;
  for (const part of cookieHeader.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(separator + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

/** What the cookie's attributes depend on in a request. */
export interface CookieRequest {
  header(name: string): string | undefined;
}

/** Whether the request reached Strata over TLS, directly or through a proxy that says so. */
export function overTls(request: CookieRequest): boolean {
  const forwarded = request.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return forwarded === 'https';
}

/** The `Set-Cookie` value starting a session that lasts `maxAgeMs`. */
export function sessionCookie(token: string, maxAgeMs: number, request: CookieRequest): string {
  return cookieText(token, Math.floor(maxAgeMs / 1000), request);
}

/** The `Set-Cookie` value ending the session in the browser. */
export function clearedSessionCookie(request: CookieRequest): string {
  return cookieText('', 0, request);
}

function cookieText(value: string, maxAgeSeconds: number, request: CookieRequest): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(overTls(request) ? ['Secure'] : []),
  ].join('; ');
}

/** Methods that change nothing, which a cross-site page may cause without harm. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The message of a refused cross-site write. */
export const CROSS_SITE_REFUSAL =
  'Refused a cookie-authenticated write that did not come from this site (its Origin is not this server)';

/**
 * Checks that a cookie-authenticated request that may change something comes from a page of this site: its `Origin`
 * (which browsers send with every such request) names this host, or — where a browser sent no `Origin` — its
 * `Sec-Fetch-Site` says same-origin. A request with neither is not from a browser page (a command-line client holding
 * the cookie), which no other site can make a browser send. `SameSite=Strict` already keeps the cookie off cross-site
 * requests; this is the second lock.
 */
export function assertSameOrigin(request: CookieRequest & { readonly method: string }): void {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return;
  const origin = request.header('origin');
  if (origin !== undefined) {
    const host = hostOf(origin);
    if (host !== undefined && servedHosts(request).includes(host)) return;
    throw new ForbiddenError(CROSS_SITE_REFUSAL);
  }
  const site = request.header('sec-fetch-site');
  if (site === undefined || site === 'same-origin' || site === 'none') return;
  throw new ForbiddenError(CROSS_SITE_REFUSAL);
}

/** The host this request was sent to: its `Host`, and the one a proxy in front says the client asked for. */
function servedHosts(request: CookieRequest): string[] {
  return [request.header('host'), request.header('x-forwarded-host')?.split(',')[0]]
    .filter((host): host is string => host !== undefined && host.trim() !== '')
    .map((host) => host.trim().toLowerCase());
}

function hostOf(origin: string): string | undefined {
  try {
    return origin === 'null' ? undefined : new URL(origin).host.toLowerCase();
  } catch {
    return undefined;
  }
}
