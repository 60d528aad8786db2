import { timingSafeEqual } from 'node:crypto';
import { credentialsOf, SYSTEM_ACTOR, TokenError, type TokenService } from '@strata/auth';
import type { Authenticator } from '@strata/http';
import { UnauthorizedError } from '@strata/model';
import type { SecuritySnapshot } from './security-view';

/** DataHub's answer to every request without the credentials it needs, whatever is wrong with them. */
export const UNAUTHORIZED_MESSAGE = 'Unauthorized to perform this action.';

export interface AuthenticatorOptions {
  /** `METADATA_SERVICE_AUTH_ENABLED`: whether requests to protected paths need credentials. */
  readonly enabled: boolean;
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
 * Paths open to everyone, as in DataHub: logging in, health, metrics, documentation, the server's configuration (the
 * ingestion sink's first call) and the schema registry (Kafka producers).
 */
const OPEN_PATHS = [
  /^\/logIn$/,
  /^\/health(\/|$)/,
  /^\/metrics$/,
  /^\/config(\/|$)/,
  /^\/schema-registry(\/|$)/,
  /^\/restli\/docs(\/|$)/,
  /^\/openapi\/v3\/api-docs/,
  /^\/openapi\/swagger-ui(\/|$)/,
];

/**
 * The gateway's authentication: a valid access token acts as its user (`urn:li:corpuser:<actorId>`), the system
 * client as the system actor — on every path, also when authentication is off, so that every write names who made
 * it. A token is valid when it verifies, its user exists and is neither soft-deleted nor suspended, and — for a
 * stored (personal) token — its `dataHubAccessToken` entity still exists: revoking deletes it. A request without valid credentials is anonymous on an open path, and anywhere while authentication is off;
 * otherwise it is refused with DataHub's 401, whatever was wrong (missing, malformed, expired, another key's).
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const secret = Buffer.from(options.systemClient.secret, 'utf8');
  return async (request) => {
    const path = request.path;
    const credentials = credentialsOf(request.header('authorization'));
    let refusal: string;
    if ('problem' in credentials) {
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
        else return actor;
      } catch (error) {
        if (!(error instanceof TokenError)) throw error;
        refusal = error.message;
      }
    }
    if (!options.enabled || OPEN_PATHS.some((pattern) => pattern.test(path))) return options.anonymousActor;
    options.onRefused?.(refusal, path);
    throw new UnauthorizedError(UNAUTHORIZED_MESSAGE);
  };
}
