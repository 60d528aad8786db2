import { timingSafeEqual } from 'node:crypto';
import { credentialsOf, SYSTEM_ACTOR, TokenError, type TokenService } from '@strata/auth';
import type { Authenticator } from '@strata/http';
import { UnauthorizedError } from '@strata/model';
import type { SecuritySnapshot } from './security-view';
import { assertSameOrigin, sessionTokenOf } from './session-cookie';

/** DataHub's answer to every request without the credentials it needs, whatever is wrong with them. */
export const UNAUTHORIZED_MESSAGE = 'Unauthorized to perform this action.';

export interface AuthenticatorOptions {
  readonly tokens: TokenService;
  /** The system client's id and secret (`DATAHUB_SYSTEM_CLIENT_ID`, `DATAHUB_SYSTEM_CLIENT_SECRET`). */
  readonly systemClient: { readonly id: string; readonly secret: string };
  /** The actor of a request without credentials where it may go without. */
  readonly anonymousActor: string;
  /** Told why credentials were refused (never the credentials themselves), for the server's log. */
  readonly onRefused?: (reason: string, path: string) => void;
  /** The catalog's security state: whether a token's user may act, whether a stored token still exists. */
  readonly security: { snapshot(): Promise<SecuritySnapshot> };
}

/** The entity a stored (personal) access token is kept as: its `jti` names it (docs/adr/0020). */
export function accessTokenUrn(jti: string): string {
  return `urn:li:dataHubAccessToken:${jti}`;
}

/**
 * The gateway's authentication: a valid access token acts as its user (`urn:li:corpuser:<actorId>`), the system
 * client as the system actor — whether authentication is on or off, so that every write names who made it. A token is
 * valid when it verifies, its user exists and is neither soft-deleted nor suspended, and — for a stored (personal)
 * token — its `dataHubAccessToken` entity still exists: revoking deletes it.
 *
 * A request without credentials is anonymous: whether it may go on is its route's declaration's to say (the route
 * guard). Credentials that are there but do not do — malformed, expired, signed with another key, revoked, of an
 * inactive user, a wrong system secret — are refused with DataHub's 401, also with authentication off, so that a
 * misconfigured client learns it at once instead of acting as nobody; only an open route ignores them. The security
 * state read to check a token is kept as the request's session: its authorization asks the same snapshot.
 *
 * A request without an `Authorization` header may carry the console's session cookie instead (session-cookie.ts): its
 * token is checked the same way, and a write made with it must come from a page of this site.
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const secret = Buffer.from(options.systemClient.secret, 'utf8');
  return async (request) => {
    const authorization = request.header('authorization');
    // Without an Authorization header, the console's session cookie stands for a bearer token: only from this site.
    const cookieToken = authorization === undefined ? sessionTokenOf(request.header('cookie')) : undefined;
    if (cookieToken !== undefined && !request.open) assertSameOrigin(request);
    const credentials = credentialsOf(cookieToken === undefined ? authorization : `Bearer ${cookieToken}`);
    let refusal: string;
    if ('problem' in credentials) {
      if (credentials.problem === 'missing') return options.anonymousActor;
      refusal = credentials.problem;
    } else if (credentials.kind === 'system') {
      const given = Buffer.from(credentials.secret, 'utf8');
      if (
        credentials.clientId === options.systemClient.id &&
        given.length === secret.length &&
        timingSafeEqual(given, secret)
      ) {
        return SYSTEM_ACTOR;
      }
      refusal = 'system client credentials do not match';
    } else {
      try {
        const claims = await options.tokens.verify(credentials.token);
        const actor = `urn:li:corpuser:${claims.actorId}`;
        const stored = claims.version === '2';
        const snapshot = await options.security.snapshot();
        const principal = await snapshot.principal(actor, stored ? accessTokenUrn(claims.jti) : undefined);
        if (!principal.exists || principal.removed || principal.suspended) refusal = 'Actor is not active';
        else if (stored && principal.tokenExists !== true) refusal = 'Token has been revoked';
        else return { actor, session: snapshot };
      } catch (error) {
        if (!(error instanceof TokenError)) throw error;
        refusal = error.message;
      }
    }
    if (request.open) return options.anonymousActor;
    options.onRefused?.(refusal, request.path);
    throw new UnauthorizedError(UNAUTHORIZED_MESSAGE);
  };
}
