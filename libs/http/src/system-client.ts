import { timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '@strata/model';
import type { Authenticator } from './create-http-app';

/** The header in which the gateway names the actor of a request it forwards with the system client's credentials. */
export const ACTOR_HEADER = 'x-strata-actor';
/** The header in which the gateway names the address of the client whose request it forwards. */
export const SOURCE_IP_HEADER = 'x-strata-source-ip';

/** The system client: its id and secret (`DATAHUB_SYSTEM_CLIENT_ID`, `DATAHUB_SYSTEM_CLIENT_SECRET`). */
export interface SystemClient {
  readonly id: string;
  readonly secret: string;
}

/** The `Authorization` header value of the system client: the pair itself, not base64, as DataHub writes it. */
export function systemClientAuthorization(client: SystemClient): string {
  return `Basic ${client.id}:${client.secret}`;
}

/** Whether an `Authorization` header holds the system client's credentials (compared in constant time). */
export function isSystemClient(authorization: string | undefined, client: SystemClient): boolean {
  const given = Buffer.from(authorization?.trim() ?? '', 'utf8');
  const expected = Buffer.from(systemClientAuthorization(client), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Paths of a service open to anyone: its health and metrics. */
const OPEN_PATHS = new Set(['/health', '/metrics']);

/**
 * How a service run alone (behind a gateway) authenticates: it serves only the system client — the gateway, which has
 * authenticated the client already and names its actor in `X-Strata-Actor`, and the other services — and refuses
 * anyone else on its port with 401, so that nobody can reach the catalog around the gateway's checks. Its health and
 * metrics stay open.
 */
export function systemClientAuthenticator(client: SystemClient, systemActor: string): Authenticator {
  return (request) => {
    if (OPEN_PATHS.has(request.path)) return Promise.resolve(systemActor);
    if (!isSystemClient(request.header('authorization'), client)) {
      return Promise.reject(new UnauthorizedError('Unauthorized to perform this action.'));
    }
    const actor = request.header(ACTOR_HEADER);
    return Promise.resolve({
      actor: actor !== undefined && /^urn:li:corpuser:\S+$/.test(actor) ? actor : systemActor,
      sourceIp: request.header(SOURCE_IP_HEADER),
    });
  };
}
